// Imported with `with { type: 'text' }`: esbuild inlines the file contents as a string.
declare module 'swagger-ui-dist/swagger-ui-bundle.js' {
  const source: string;
  export default source;
}
declare module 'swagger-ui-dist/swagger-ui.css' {
  const source: string;
  export default source;
}
