// The one source of "now" every module is given (app.ts passes it in; tests pass a controllable one). A leaf
// module, so feature modules can name the type without importing the app that wires them.
export type Clock = () => Date;
