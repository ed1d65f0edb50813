// nodemailer, loaded on first use: it is most of the delivery code's memory (about 20 MB resident), and a node
// whose delivery is `none` or `webhook` never needs it. It is CommonJS, so a synchronous require works here.
import { createRequire } from 'node:module';
import type Nodemailer from 'nodemailer';

const require = createRequire(import.meta.url);
let loaded: typeof Nodemailer | null = null;

export const nodemailer = (): typeof Nodemailer => {
  loaded ??= require('nodemailer') as typeof Nodemailer;
  return loaded;
};
