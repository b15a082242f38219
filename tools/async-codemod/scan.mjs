import { ts, isPromiseLike } from './lib.mjs';
const ARRAY_METHODS = new Set(['forEach', 'filter', 'some', 'every', 'find', 'findIndex', 'findLast', 'sort', 'toSorted', 'reduce', 'flatMap', 'map']);
const PROMISE_COMBINATORS = new Set(['all', 'race', 'allSettled', 'any']);
function enclosingFunction(node) {
  for (let n = node.parent; n; n = n.parent) if (ts.isFunctionLike(n)) return n;
  return undefined;
}
function insideTryBlock(node) {
  for (let n = node; n.parent; n = n.parent) {
    if (ts.isFunctionLike(n.parent)) return false;
    if (ts.isTryStatement(n.parent) && n.parent.tryBlock === n) return true;
  }
  return false;
}
export function scan(service, fileNames) {
  const program = service.getProgram();
  const checker = program.getTypeChecker();
  const out = [];
  for (const fileName of fileNames) {
    if (fileName.includes('/node_modules/')) continue;
    const sf = program.getSourceFile(fileName);
    const visit = (node) => {
      if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
        let expr = node;
        let parent = node.parent;
        while (ts.isParenthesizedExpression(parent) || ts.isNonNullExpression(parent) || ts.isAsExpression(parent)) { expr = parent; parent = parent.parent; }
        const type = checker.getTypeAtLocation(node);
        if (isPromiseLike(checker, type)) {
          let kind = null;
          if (ts.isAwaitExpression(parent) || ts.isVoidExpression(parent) || ts.isYieldExpression(parent)) kind = null;
          else if (ts.isPropertyAccessExpression(parent) && ['then', 'catch', 'finally'].includes(parent.name.text)) kind = null;
          else if (ts.isExpressionStatement(parent)) kind = 'floating';
          else if (ts.isReturnStatement(parent)) kind = insideTryBlock(parent) ? 'return-in-try' : null;
          else if (ts.isArrowFunction(parent) && parent.body === expr) {
            const call = parent.parent;
            if (ts.isCallExpression(call) && ts.isPropertyAccessExpression(call.expression) && ARRAY_METHODS.has(call.expression.name.text)) kind = 'array-callback';
          } else if (ts.isCallExpression(parent) && parent.arguments.includes(expr)) {
            const callee = parent.expression;
            if (ts.isPropertyAccessExpression(callee) && PROMISE_COMBINATORS.has(callee.name.text)) kind = null;
            else kind = 'argument';
          } else if (ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) || ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.EqualsToken) kind = 'assigned';
          else if (ts.isArrayLiteralExpression(parent)) kind = 'array';
          else kind = 'other:' + ts.SyntaxKind[parent.kind];
          if (kind) {
            const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
            out.push({ fileName, start: expr.getStart(sf), kind, line: line + 1, text: node.getText(sf).slice(0, 100) });
          }
        }
      }
      // async callbacks given to array methods
      if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isCallExpression(node.parent) && ts.isPropertyAccessExpression(node.parent.expression) && ARRAY_METHODS.has(node.parent.expression.name.text)) {
        const sig = checker.getSignatureFromDeclaration(node);
        if (sig && isPromiseLike(checker, checker.getReturnTypeOfSignature(sig)) && node.parent.expression.name.text !== 'map') {
          const { line } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
          out.push({ fileName, start: node.getStart(sf), kind: 'async-callback:' + node.parent.expression.name.text, line: line + 1, text: node.parent.getText(sf).slice(0, 100) });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return out;
}
