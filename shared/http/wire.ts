/**
 * What a schema that transforms first accepts on the wire, for the API reference: JSON Schema
 * can state a pipe's input only when it starts with a schema, so one that starts with a
 * transform (a recipient given as a string or an object) says here what it takes.
 */
import type * as z from 'zod/mini';

const inputs = new WeakMap<object, z.ZodMiniType>();

/** Marks `schema` as accepting what `input` describes; answers `schema`. */
export function acceptsOnWire<S extends z.ZodMiniType>(schema: S, input: z.ZodMiniType): S {
  inputs.set(schema, input);
  return schema;
}

/** The wire input `acceptsOnWire` gave `schema`, if any. */
export const wireInputOf = (schema: object): z.ZodMiniType | undefined => inputs.get(schema);
