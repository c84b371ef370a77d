/** The workflows' event listener: triggers and waits (`triggers.ts`). */
import { workflowListener } from './triggers';

export const listeners = [workflowListener];
