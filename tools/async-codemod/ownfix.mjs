import { ts, isPromiseLike } from './lib.mjs';
function findNode(sf, start, end) {
  let best;
  const visit = (node) => {
    if (node.getStart(sf) <= start && node.getEnd() >= end) {
      if (node.getStart(sf) === start && node.getEnd() === end) best = node;
      else if (!best || (node.getStart(sf) >= best.getStart(sf) && node.getEnd() <= best.getEnd())) best = node;
      ts.forEachChild(node, visit);
    }
  };
  visit(sf);
  return best;
}
const PRIMARY = (n) => ts.isCallExpression(n) || ts.isIdentifier(n) || ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n) || ts.isNewExpression(n) || ts.isParenthesizedExpression(n) || ts.isNonNullExpression(n);
function awaitEdit(sf, target) {
  const parent = target.parent;
  const needsParens = !PRIMARY(target) || ((ts.isPropertyAccessExpression(parent) || ts.isElementAccessExpression(parent)) && parent.expression === target) || (ts.isCallExpression(parent) && parent.expression === target) || ts.isNonNullExpression(parent) || ts.isAsExpression(parent) || ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken;
  // a?.b where a is the target: the chain continues through parent
  if (needsParens) return [{ span: { start: target.getStart(sf), length: 0 }, newText: '(await ' }, { span: { start: target.getEnd(), length: 0 }, newText: ')' }];
  return [{ span: { start: target.getStart(sf), length: 0 }, newText: 'await ' }];
}
export function ownFix(program, diag) {
  const checker = program.getTypeChecker();
  const sf = diag.file;
  const msg = ts.flattenDiagnosticMessageText(diag.messageText, '\n');
  if (!/Promise<|then</.test(msg)) return null;
  let node = findNode(sf, diag.start, diag.start + diag.length);
  if (!node) return null;
  let target = node;
  if (ts.isReturnStatement(node) && node.expression) target = node.expression;
  if (ts.isIdentifier(node) && ts.isBinaryExpression(node.parent) && node.parent.left === node && node.parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) target = node.parent.right;
  if (target !== node) node = target;
  if ((diag.code === 2339 || diag.code === 2551) && ts.isIdentifier(node)) {
    const p = node.parent;
    if (ts.isPropertyAccessExpression(p) && p.name === node) target = p.expression;
    else if (ts.isBindingElement(p) || ts.isBindingElement(p.parent)) {
      let d = p; while (d && !ts.isVariableDeclaration(d)) d = d.parent;
      if (d?.initializer) target = d.initializer; else return null;
    } else if (ts.isShorthandPropertyAssignment(p) || ts.isPropertyAssignment(p)) return null;
  } else if (ts.isIdentifier(node) && ts.isPropertyAssignment(node.parent) && node.parent.name === node) target = node.parent.initializer;
  else if (ts.isIdentifier(node) && ts.isShorthandPropertyAssignment(node.parent)) {
    const sym = checker.getShorthandAssignmentValueSymbol(node.parent);
    const decl = sym?.valueDeclaration;
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer && decl.getSourceFile() === sf && !ts.isAwaitExpression(decl.initializer)) return { fileName: sf.fileName, edits: awaitEdit(sf, decl.initializer) };
    return { fileName: sf.fileName, edits: [{ span: { start: node.getEnd(), length: 0 }, newText: `: await ${node.text}` }] };
  } else if (ts.isIdentifier(node) && ts.isVariableDeclaration(node.parent) && node.parent.name === node) {
    if (!node.parent.initializer) return null;
    target = node.parent.initializer;
  } else if (ts.isElementAccessExpression(node.parent) && node.parent.argumentExpression === node) target = node.parent.expression;
  if (ts.isIdentifier(target) && (ts.isPropertyAssignment(target.parent) && target.parent.name === target || ts.isShorthandPropertyAssignment(target.parent) || ts.isPropertyDeclaration(target.parent) || ts.isParameter(target.parent) || ts.isBindingElement(target.parent))) return null;
  else if (ts.isObjectBindingPattern(node) || ts.isArrayBindingPattern(node)) {
    const d = node.parent; if (ts.isVariableDeclaration(d) && d.initializer) target = d.initializer; else return null;
  }
  while (ts.isParenthesizedExpression(target) && !isPromiseLike(checker, checker.getTypeAtLocation(target))) target = target.expression;
  // spread of a promise: find spread elements of promise type inside
  if (!isPromiseLike(checker, checker.getTypeAtLocation(target))) {
    const found = [];
    const visit = (n) => { if ((ts.isSpreadAssignment(n) || ts.isSpreadElement(n)) && isPromiseLike(checker, checker.getTypeAtLocation(n.expression))) found.push(n.expression); ts.forEachChild(n, visit); };
    visit(target);
    if (!found.length) return null;
    target = found[0];
  }
  if (ts.isAwaitExpression(target.parent)) return null;
  // a variable holding a promise: await where it is set
  if (ts.isIdentifier(target)) {
    const sym = checker.getSymbolAtLocation(target);
    const decl = sym?.valueDeclaration;
    if (decl && ts.isVariableDeclaration(decl) && decl.initializer && decl.getSourceFile() === sf && isPromiseLike(checker, checker.getTypeAtLocation(decl.initializer)) && !ts.isAwaitExpression(decl.initializer)) return { fileName: sf.fileName, edits: awaitEdit(sf, decl.initializer) };
    if (decl && ts.isParameter(decl)) return null;
  }
  return { fileName: sf.fileName, edits: awaitEdit(sf, target) };
}
