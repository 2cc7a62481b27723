/** For the default branch of an exhaustive switch: a new case becomes a compile error, and a runtime one. */
export function assertNever(value: never, what = 'value'): never {
  throw new Error(`Unhandled ${what}: ${JSON.stringify(value)}`);
}
