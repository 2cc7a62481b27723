/* global URL */
// Module resolution hook: `electron` resolves to the fake next to this file.
const fake = new URL('./electron.mjs', import.meta.url).href;
export async function resolve(specifier, context, next) {
  if (specifier === 'electron') return { url: fake, shortCircuit: true };
  return next(specifier, context);
}
