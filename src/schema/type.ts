// `Type`, the schema builders (builders.ts), as one name the way TypeBox exports them.
export * as Type from './builders.ts';
