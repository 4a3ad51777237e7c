/**
 * Formula metrics: a small, safe arithmetic language over one data point
 * value. A pure tokenizer and recursive-descent parser build an AST that
 * {@link evaluate} walks; nothing is ever handed to `eval` or `Function`, and
 * only the names below exist, so `process.exit()` and the like are refused.
 *
 * Grammar (usual precedence, left-associative binary operators):
 *
 *     expr    := term (("+" | "-") term)*
 *     term    := unary (("*" | "/" | "%") unary)*
 *     unary   := ("-" | "+") unary | primary
 *     primary := number | "x" | "value" | name "(" expr ("," expr)* ")" | "(" expr ")"
 *
 * Numbers are decimal (`12`, `0.5`, `.5`, `1e3`). `x` and `value` both name
 * the data point's value. Names are case-sensitive.
 */

/** Longest accepted expression, characters. */
export const MAX_EXPRESSION_LENGTH = 500;
/** Deepest accepted nesting of parentheses, calls and unary signs. */
export const MAX_EXPRESSION_DEPTH = 50;

/** The functions an expression may call, with their number of arguments (min, max). */
export const EXPRESSION_FUNCTIONS = {
  abs: [1, 1],
  min: [1, 20],
  max: [1, 20],
  round: [1, 1],
  floor: [1, 1],
  ceil: [1, 1],
  sqrt: [1, 1],
  pow: [2, 2],
} as const satisfies Record<string, readonly [number, number]>;

/** The name of a callable function. */
export type ExpressionFunction = keyof typeof EXPRESSION_FUNCTIONS;
/** A binary operator. */
export type BinaryOperator = "+" | "-" | "*" | "/" | "%";

/** The parsed form of an expression. */
export type Expr =
  | { kind: "number"; value: number }
  | { kind: "variable" }
  | { kind: "negate"; operand: Expr }
  | { kind: "binary"; op: BinaryOperator; left: Expr; right: Expr }
  | { kind: "call"; fn: ExpressionFunction; args: Expr[] };

/** Why an expression does not parse; `position` is the 1-based character where the problem is. */
export class ExpressionError extends Error {
  override readonly name = "ExpressionError";
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {
    super(`at position ${position}: ${reason}`);
  }
}

type Token =
  | { type: "number"; value: number; at: number; text: string }
  | { type: "name"; text: string; at: number }
  | { type: "op"; text: "+" | "-" | "*" | "/" | "%" | "(" | ")" | ","; at: number }
  | { type: "end"; at: number; text: "" }
  | { type: "bad"; error: ExpressionError; at: number; text: string };

const NUMBER = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/;
const OPS = "+-*/%(),";

/**
 * Splits `text` into tokens (positions 0-based here, reported 1-based). A
 * character or number that cannot start a token becomes a "bad" token that
 * fails when the parser reaches it, so the leftmost problem is reported.
 */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === " " || ch === "\t" || ch === "\n" || ch === "\r") {
      i++;
      continue;
    }
    const rest = text.slice(i);
    const num = NUMBER.exec(rest);
    if (num) {
      const value = Number(num[0]);
      tokens.push(
        Number.isFinite(value)
          ? { type: "number", value, at: i, text: num[0] }
          : { type: "bad", error: new ExpressionError(i + 1, `number ${num[0]} is out of range`), at: i, text: num[0] },
      );
      i += num[0].length;
      continue;
    }
    const name = NAME.exec(rest);
    if (name) {
      tokens.push({ type: "name", text: name[0], at: i });
      i += name[0].length;
      continue;
    }
    if (OPS.includes(ch)) {
      tokens.push({ type: "op", text: ch as "+", at: i });
      i++;
      continue;
    }
    tokens.push({
      type: "bad",
      error: new ExpressionError(i + 1, `unexpected character ${JSON.stringify(ch)}`),
      at: i,
      text: ch,
    });
    break;
  }
  tokens.push({ type: "end", at: text.length, text: "" });
  return tokens;
}

const describe = (t: Token) => (t.type === "end" ? "end of expression" : `"${t.text}"`);
const isFunction = (name: string): name is ExpressionFunction => Object.hasOwn(EXPRESSION_FUNCTIONS, name);

/** Recursive descent over the token list; depth counts open parentheses, calls and unary signs. */
class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly tokens: Token[]) {}

  private peek(): Token {
    const t = this.tokens[this.i]!;
    if (t.type === "bad") throw t.error;
    return t;
  }
  private next(): Token {
    const t = this.peek();
    this.i++;
    return t;
  }
  private isOp(text: string): boolean {
    const t = this.peek();
    return t.type === "op" && t.text === text;
  }
  private expect(text: string): void {
    const t = this.next();
    if (t.type !== "op" || t.text !== text)
      throw new ExpressionError(t.at + 1, `expected "${text}" but found ${describe(t)}`);
  }
  private enter(at: number): void {
    if (++this.depth > MAX_EXPRESSION_DEPTH)
      throw new ExpressionError(at + 1, `nested deeper than ${MAX_EXPRESSION_DEPTH} levels`);
  }

  whole(): Expr {
    const e = this.expr();
    const t = this.peek();
    if (t.type !== "end") throw new ExpressionError(t.at + 1, `unexpected ${describe(t)}`);
    return e;
  }

  private expr(): Expr {
    let left = this.term();
    while (this.isOp("+") || this.isOp("-")) {
      const op = this.next().text as BinaryOperator;
      left = { kind: "binary", op, left, right: this.term() };
    }
    return left;
  }

  private term(): Expr {
    let left = this.unary();
    while (this.isOp("*") || this.isOp("/") || this.isOp("%")) {
      const op = this.next().text as BinaryOperator;
      left = { kind: "binary", op, left, right: this.unary() };
    }
    return left;
  }

  private unary(): Expr {
    if (this.isOp("-") || this.isOp("+")) {
      const sign = this.next();
      this.enter(sign.at);
      const operand = this.unary();
      this.depth--;
      return sign.text === "-" ? { kind: "negate", operand } : operand;
    }
    return this.primary();
  }

  private primary(): Expr {
    const t = this.next();
    if (t.type === "number") return { kind: "number", value: t.value };
    if (t.type === "op" && t.text === "(") {
      this.enter(t.at);
      const inner = this.expr();
      this.expect(")");
      this.depth--;
      return inner;
    }
    if (t.type === "name") {
      if (t.text === "x" || t.text === "value") {
        if (this.isOp("(")) throw new ExpressionError(this.peek().at + 1, `"${t.text}" is not a function`);
        return { kind: "variable" };
      }
      if (!isFunction(t.text)) {
        throw new ExpressionError(
          t.at + 1,
          `unknown name "${t.text}" (use x or value, numbers and ${Object.keys(EXPRESSION_FUNCTIONS).join(", ")})`,
        );
      }
      return this.call(t.text, t.at);
    }
    throw new ExpressionError(t.at + 1, `expected a number, x, a function or "(" but found ${describe(t)}`);
  }

  private call(fn: ExpressionFunction, at: number): Expr {
    if (!this.isOp("(")) throw new ExpressionError(this.peek().at + 1, `expected "(" after ${fn}`);
    this.next();
    this.enter(at);
    const args: Expr[] = [this.expr()];
    while (this.isOp(",")) {
      this.next();
      args.push(this.expr());
    }
    this.expect(")");
    this.depth--;
    const [min, max] = EXPRESSION_FUNCTIONS[fn];
    if (args.length < min || args.length > max) {
      const wanted = min === max ? `${min}` : `${min} to ${max}`;
      throw new ExpressionError(at + 1, `${fn} takes ${wanted} argument${max === 1 ? "" : "s"}, not ${args.length}`);
    }
    return { kind: "call", fn, args };
  }
}

/**
 * Parses an expression; throws {@link ExpressionError} (with the 1-based position) when it is empty, too long, too deep
 * or malformed.
 */
export function parseExpression(text: string): Expr {
  if (text.length > MAX_EXPRESSION_LENGTH)
    throw new ExpressionError(MAX_EXPRESSION_LENGTH + 1, `longer than ${MAX_EXPRESSION_LENGTH} characters`);
  if (text.trim() === "") throw new ExpressionError(1, "empty expression");
  return new Parser(tokenize(text)).whole();
}

/** Why `text` is not a valid expression (`at position N: …`), or undefined when it is. */
export function expressionProblem(text: string): string | undefined {
  try {
    parseExpression(text);
    return undefined;
  } catch (err) {
    if (err instanceof ExpressionError) return err.message;
    throw err;
  }
}

const binary: Record<BinaryOperator, (a: number, b: number) => number> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => a / b,
  "%": (a, b) => a % b,
};

const functions: Record<ExpressionFunction, (args: number[]) => number> = {
  abs: ([a]) => Math.abs(a!),
  min: (args) => Math.min(...args),
  max: (args) => Math.max(...args),
  round: ([a]) => Math.round(a!),
  floor: ([a]) => Math.floor(a!),
  ceil: ([a]) => Math.ceil(a!),
  sqrt: ([a]) => Math.sqrt(a!),
  pow: ([a, b]) => a! ** b!,
};

/** A finite result, or null for NaN and ±Infinity. */
const finite = (n: number): number | null => (Number.isFinite(n) ? n : null);

/**
 * The value of `ast` for the data point value `x`. Any step whose result is
 * not a finite number — division or remainder by zero, `sqrt` of a negative,
 * an overflow, or a non-finite `x` — makes the whole result null (no NaN or
 * Infinity ever comes out, and a later step cannot turn one back into a number).
 */
export function evaluate(ast: Expr, x: number): number | null {
  switch (ast.kind) {
    case "number":
      return ast.value;
    case "variable":
      return finite(x);
    case "negate": {
      const v = evaluate(ast.operand, x);
      return v === null ? null : -v;
    }
    case "binary": {
      const a = evaluate(ast.left, x);
      if (a === null) return null;
      const b = evaluate(ast.right, x);
      if (b === null) return null;
      return finite(binary[ast.op](a, b));
    }
    case "call": {
      const args: number[] = [];
      for (const arg of ast.args) {
        const v = evaluate(arg, x);
        if (v === null) return null;
        args.push(v);
      }
      return finite(functions[ast.fn](args));
    }
  }
}
