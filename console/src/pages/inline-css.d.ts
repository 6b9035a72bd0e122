// Vite's `?inline` import of a stylesheet: its text, bundled into the chunk that imports it (console/src/pages/overview.tsx).
declare module '*.css?inline' {
  const css: string;
  export default css;
}
