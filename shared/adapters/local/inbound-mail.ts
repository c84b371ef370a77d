/**
 * InboundMailPort for the local runtime: the stand-in of the inbound bucket SES stores received
 * mail in. `POST /_local/inbound` (shared/local/gateway.ts) stores a message here as SES's receipt
 * rule does on AWS (`inbound/<message id>`), and the jobs worker reads it through the port. Files
 * under `<dataDir>/inbound-mail` (as LocalBlobs keeps the upload bucket's), or memory. Nothing
 * expires locally.
 */
import type { InboundMailPort } from '../../ports';
import { LocalBlobs } from './blobs';

export class LocalInboundMail implements InboundMailPort {
  private readonly objects: LocalBlobs;

  constructor(options: { dataDir?: string } = {}) {
    this.objects = new LocalBlobs({ dataDir: options.dataDir, folder: 'inbound-mail' });
  }

  /** Stores a raw message under `key`, as SES's S3 action does (the gateway's side, not the port's). */
  async put(key: string, raw: Uint8Array): Promise<void> {
    await this.objects.put(key, raw, 'message/rfc822');
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.objects.get(key);
  }
}
