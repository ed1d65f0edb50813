// The size test's entry: an app that keeps every export of the built package alive.
export * from '../../../sdk/browser/dist/index.js';
