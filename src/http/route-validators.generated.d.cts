// The shape of route-validators.generated.cjs, which `npm run validators` writes (src/http/route-validators.ts).
declare const generated: {
  /** Each validator's factory by its key (validatorKey): calling it evaluates the validator's code once. */
  readonly validators: ReadonlyMap<string, () => unknown>;
};
export = generated;
