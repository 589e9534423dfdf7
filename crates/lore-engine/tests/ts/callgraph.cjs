// The TypeScript compiler's own call graph of a project, the ground truth lore's graph is
// checked against (tests/graph_ts.rs).
//
//   node callgraph.cjs ROOT [DIR...]   (typescript from $LORE_TYPESCRIPT, else `require`)
//
// Takes every .ts/.tsx/.mts/.cts/.js/.jsx/.mjs/.cjs file under ROOT/DIR (default ROOT),
// without declaration files and node_modules, into one program (allowJs, so JavaScript is
// resolved too), and prints one JSON object: the files, and for every call expression whose
// callee the checker resolves to a declaration in one of those files, the call site and the
// declaration (file, 1-based line and UTF-8 byte offset of its name), with the callee's kind. Calls the checker
// resolves elsewhere (the standard library, a dependency, a value that is not a function of
// the project) are listed with no declaration, and calls it cannot resolve only counted.
'use strict';
const fs = require('fs');
const path = require('path');
const ts = require(process.env.LORE_TYPESCRIPT || 'typescript');

const [root, ...dirs] = process.argv.slice(2);
if (!root) {
  console.error('usage: node callgraph.cjs ROOT [DIR...]');
  process.exit(2);
}
const CODE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const files = [];
function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'node_modules' && !e.name.startsWith('.')) walk(p);
    } else if (CODE.test(e.name) && !/\.d\.[cm]?ts$/.test(e.name)) {
      files.push(path.resolve(p));
    }
  }
}
for (const d of dirs.length ? dirs : ['.']) walk(path.join(root, d));
const inProject = new Set(files);

// A project's own module paths (`@vue/*` → `packages/*/src`), when its tsconfig.json says.
const paths = {};
const tsconfig = path.join(root, 'tsconfig.json');
if (fs.existsSync(tsconfig)) {
  const read = ts.readConfigFile(tsconfig, ts.sys.readFile);
  const o = (read.config && read.config.compilerOptions) || {};
  if (o.paths) Object.assign(paths, { paths: o.paths, baseUrl: path.resolve(root, o.baseUrl || '.') });
}
const program = ts.createProgram(files, {
  ...paths,
  allowJs: true,
  checkJs: false,
  noEmit: true,
  skipLibCheck: true,
  target: ts.ScriptTarget.ESNext,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  jsx: ts.JsxEmit.Preserve,
  strict: true,
});
const checker = program.getTypeChecker();
const rel = (f) => path.relative(root, f).split(path.sep).join('/');
const lineOf = (sf, pos) => sf.getLineAndCharacterOfPosition(pos).line + 1;
// lore's offsets are UTF-8 bytes, the compiler's UTF-16 units.
const byteOf = (sf, pos) => Buffer.byteLength(sf.text.slice(0, pos), 'utf8');

// What kind of thing a call lands on, for recall and precision per kind.
function calleeKind(decl, call) {
  const callee = call.expression;
  if (ts.isPropertyAccessExpression(callee) && ts.isPrivateIdentifier(callee.name)) return 'private';
  if (ts.isPropertyAccessExpression(callee) && ts.isPropertyAccessExpression(callee.expression)) {
    const inner = checker.getSymbolAtLocation(callee.expression.name);
    if (inner && inner.declarations && inner.declarations.some(ts.isGetAccessorDeclaration)) return 'getter-typed';
  }
  if (ts.isFunctionDeclaration(decl)) return 'function';
  if (ts.isVariableDeclaration(decl)) return 'const arrow';
  if (ts.isClassDeclaration(decl) || ts.isClassExpression(decl)) return 'class';
  if (ts.isMethodDeclaration(decl) || ts.isConstructorDeclaration(decl) || ts.isGetAccessorDeclaration(decl)) {
    return ts.isObjectLiteralExpression(decl.parent) ? 'object member' : 'class method';
  }
  if (ts.isPropertyDeclaration(decl)) return 'class method';
  if (ts.isPropertyAssignment(decl) || ts.isShorthandPropertyAssignment(decl)) return 'object member';
  if (ts.isMethodSignature(decl) || ts.isPropertySignature(decl)) return 'interface member';
  if (ts.isBinaryExpression(decl) || ts.isPropertyAccessExpression(decl)) return 'assigned member';
  return 'other';
}

// The node naming a declaration (the test looks its unit up by where it starts).
function declName(decl) {
  return decl.name || (ts.isBinaryExpression(decl) ? decl.left : decl);
}

// Declarations that are code: a variable or property only when its value is a function or
// a class (`const debug = require('debug')(…)` is a value of unknown origin, not a unit).
function isCode(decl) {
  if (ts.isVariableDeclaration(decl) || ts.isPropertyDeclaration(decl) || ts.isPropertyAssignment(decl)) {
    const v = decl.initializer;
    return !!v && (ts.isArrowFunction(v) || ts.isFunctionExpression(v) || ts.isClassExpression(v));
  }
  if (ts.isBinaryExpression(decl)) {
    const v = decl.right;
    return ts.isArrowFunction(v) || ts.isFunctionExpression(v) || ts.isClassExpression(v);
  }
  return !(ts.isParameter(decl) || ts.isBindingElement(decl) || ts.isImportSpecifier(decl) || ts.isImportClause(decl) || ts.isNamespaceImport(decl));
}

function resolve(call) {
  let e = call.expression;
  while (ts.isParenthesizedExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  let at = e;
  if (ts.isPropertyAccessExpression(e)) at = e.name;
  else if (!ts.isIdentifier(e)) return undefined;
  let sym = checker.getSymbolAtLocation(at);
  if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
  if (!sym) return null;
  const sig = checker.getResolvedSignature(call);
  const viaSig = sig && sig.declaration && !ts.isJSDocSignature(sig.declaration) ? sig.declaration : undefined;
  let decl = sym.valueDeclaration || (sym.declarations && sym.declarations[0]);
  // An overload resolves to its signature; the unit is the declaration with the body.
  if (viaSig && sym.declarations && sym.declarations.includes(viaSig)) {
    decl = sym.declarations.find((d) => d.body) || viaSig;
  }
  return decl || null;
}

const out = { typescript: ts.version, files: files.map(rel), declaring: [], calls: [], elsewhere: 0, unresolved: 0 };

// Files that declare something at their top level: a function, class, interface, type,
// enum or namespace, a variable holding a function or class, or `x.y = function …`.
function declares(sf) {
  const fnValue = (v) => !!v && (ts.isArrowFunction(v) || ts.isFunctionExpression(v) || ts.isClassExpression(v));
  return sf.statements.some((st) =>
    ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) ||
    ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st) || ts.isModuleDeclaration(st) ||
    (ts.isVariableStatement(st) && st.declarationList.declarations.some((d) => fnValue(d.initializer))) ||
    (ts.isExpressionStatement(st) && ts.isBinaryExpression(st.expression) &&
      st.expression.operatorToken.kind === ts.SyntaxKind.EqualsToken && fnValue(st.expression.right)));
}
for (const sf of program.getSourceFiles()) {
  if (!inProject.has(path.resolve(sf.fileName))) continue;
  if (declares(sf)) out.declaring.push(rel(sf.fileName));
  const visit = (node) => {
    if (ts.isCallExpression(node) && node.expression.kind !== ts.SyntaxKind.SuperKeyword && node.expression.kind !== ts.SyntaxKind.ImportKeyword) {
      const decl = resolve(node);
      if (decl === null) out.unresolved++;
      else if (decl) {
        const dsf = decl.getSourceFile();
        if (inProject.has(path.resolve(dsf.fileName)) && !dsf.isDeclarationFile && isCode(decl)) {
          const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
          const name = declName(decl);
          out.calls.push({
            path: rel(sf.fileName),
            line: lineOf(sf, callee.getStart(sf)),
            byte: byteOf(sf, callee.getStart(sf)),
            name: callee.getText(sf).replace(/^#/, ''),
            to_path: rel(dsf.fileName),
            to_line: lineOf(dsf, name.getStart(dsf)),
            to_byte: byteOf(dsf, name.getStart(dsf)),
            kind: calleeKind(decl, node),
          });
        } else {
          // Resolved, but not to a unit of the project: a lore edge here is wrong.
          const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name : node.expression;
          out.calls.push({
            path: rel(sf.fileName),
            line: lineOf(sf, callee.getStart(sf)),
            byte: byteOf(sf, callee.getStart(sf)),
            name: callee.getText(sf).replace(/^#/, ''),
            to_path: null,
            kind: 'elsewhere',
          });
          out.elsewhere++;
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
process.stdout.write(JSON.stringify(out) + '\n');
