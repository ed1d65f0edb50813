// What an operation (backup, restore, update, import) says when it will not or cannot go on: one line naming the
// reason and what to do. The CLI prints it without a stack and exits non-zero (src/cli/failures.ts).

export class OperationRefused extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OperationRefused';
  }
}
