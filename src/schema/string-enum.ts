import Type from 'typebox';

/**
 * An enum of strings that says it is one: without `type`, fast-json-stringify writes the
 * value with JSON.stringify, which slowed the token-protected read.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: { description?: string } = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}
