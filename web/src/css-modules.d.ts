// A component may import the stylesheet it needs (`import './overview.css'`); Vite bundles it into the page's one CSS
// file. TypeScript only needs to know such an import is allowed.
declare module '*.css';
