// A domain's entry exports what code outside the domain imports, and nothing more (docs/architecture.md, "One
// public entry per domain"): a name only tests use is imported by the test from its module. Checked for the
// domains cut into rooms, whose entries were narrowed to that.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
const DOMAINS = ['play', 'rewards', 'snapshots'];
const DIRS = ['lib', 'functions', 'scripts', 'bench', 'infra', 'console/src'];

const sources = DIRS.flatMap((dir) =>
  readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter(
      (file) => /\.tsx?$/.test(file) && !file.endsWith('.generated.ts') && !file.includes('node_modules'),
    )
    .map((file) => `${dir}/${file}`),
);

const parse = (path: string) =>
  ts.createSourceFile(path, readFileSync(join(ROOT, path), 'utf8'), ts.ScriptTarget.Latest, true);

/** The module a relative specifier of `from` names, as a path from the root with a .ts extension. */
const target = (from: string, specifier: string) =>
  specifier.startsWith('.') ? normalize(join(dirname(from), specifier)).replace(/\.js$/, '.ts') : undefined;

interface Taken {
  names: string[];
  namespaces: string[];
}

/** import { a } from / export { a } from / import * as ns from the entry. */
const fromDeclaration = (node: ts.ImportDeclaration | ts.ExportDeclaration, taken: Taken) => {
  const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
  if (!bindings) return;
  if (ts.isNamespaceImport(bindings)) taken.namespaces.push(bindings.name.text);
  else if (ts.isNamedImports(bindings) || ts.isNamedExports(bindings))
    for (const element of bindings.elements) taken.names.push((element.propertyName ?? element.name).text);
};

/** The specifier of `const … = await import('…')`, if the declaration is one. */
const dynamicSpecifier = (node: ts.VariableDeclaration) => {
  const call =
    node.initializer && ts.isAwaitExpression(node.initializer) ? node.initializer.expression : undefined;
  if (!call || !ts.isCallExpression(call) || call.expression.kind !== ts.SyntaxKind.ImportKeyword)
    return undefined;
  const [argument] = call.arguments;
  return argument && ts.isStringLiteral(argument) ? argument.text : undefined;
};

/** const { a, b } = await import('…') or const ns = await import('…'). */
const fromDynamic = (node: ts.VariableDeclaration, taken: Taken) => {
  if (ts.isObjectBindingPattern(node.name))
    for (const element of node.name.elements)
      taken.names.push(((element.propertyName ?? element.name) as ts.Identifier).text);
  else if (ts.isIdentifier(node.name)) taken.namespaces.push(node.name.text);
};

/** The names `file` takes from `entry`: named imports and re-exports, and a namespace's or dynamic import's members. */
const namesTaken = (file: string, entry: string): string[] => {
  const taken: Taken = { names: [], namespaces: [] };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      target(file, node.moduleSpecifier.text) === entry
    )
      fromDeclaration(node, taken);
    if (ts.isVariableDeclaration(node)) {
      const specifier = dynamicSpecifier(node);
      if (specifier && target(file, specifier) === entry) fromDynamic(node, taken);
    }
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      taken.namespaces.includes(node.expression.text)
    )
      taken.names.push(node.name.text);
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return taken.names;
};

/** The names one statement of an entry exports. */
const exportedBy = (statement: ts.Statement): string[] => {
  if (ts.isExportDeclaration(statement) && statement.exportClause)
    return ts.isNamedExports(statement.exportClause)
      ? statement.exportClause.elements.map((element) => element.name.text)
      : [statement.exportClause.name.text];
  const exporting =
    ts.canHaveModifiers(statement) &&
    ts.getModifiers(statement)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  if (!exporting) return [];
  if (ts.isVariableStatement(statement))
    return statement.declarationList.declarations.map((d) => (d.name as ts.Identifier).text);
  const { name } = statement as ts.Statement & { name?: ts.Node };
  return name && ts.isIdentifier(name) ? [name.text] : [];
};

/** The names an entry exports (its export lists, its `export * as`, its own declarations). */
const exported = (entry: string): string[] => parse(entry).statements.flatMap(exportedBy);

describe('domain entries', () => {
  for (const domain of DOMAINS) {
    it(`lib/${domain}/index.ts exports only names that code outside the domain imports`, () => {
      const entry = `lib/${domain}/index.ts`;
      const taken = new Set(
        sources
          .filter((file) => !file.startsWith(`lib/${domain}/`))
          .flatMap((file) => namesTaken(file, entry)),
      );
      expect(taken.size).toBeGreaterThan(0);
      expect(exported(entry).filter((name) => !taken.has(name))).toEqual([]);
    });
  }
});
