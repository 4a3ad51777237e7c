import { describe, expect, it } from "vitest";
import {
  evaluate,
  ExpressionError,
  expressionProblem,
  MAX_EXPRESSION_DEPTH,
  MAX_EXPRESSION_LENGTH,
  parseExpression,
} from "./expression.js";

const run = (text: string, x = 0) => evaluate(parseExpression(text), x);
const errorOf = (text: string): ExpressionError => {
  try {
    parseExpression(text);
  } catch (err) {
    if (err instanceof ExpressionError) return err;
    throw err;
  }
  throw new Error(`"${text}" parsed`);
};

describe("expression parser", () => {
  it("evaluates numbers in every accepted notation", () => {
    expect(run("12")).toBe(12);
    expect(run("0.5")).toBe(0.5);
    expect(run(".25")).toBe(0.25);
    expect(run("1.")).toBe(1);
    expect(run("1e3")).toBe(1000);
    expect(run("2.5E-1")).toBe(0.25);
  });

  it("reads the data point value as x or value", () => {
    expect(run("x", 7)).toBe(7);
    expect(run("value * 2", 7)).toBe(14);
    expect(run("x + value", 3)).toBe(6);
  });

  it("gives * / % precedence over + and -, and is left-associative", () => {
    expect(run("1 + 2 * 3")).toBe(7);
    expect(run("10 - 4 - 3")).toBe(3);
    expect(run("100 / 10 / 5")).toBe(2);
    expect(run("7 % 4 * 2")).toBe(6);
    expect(run("2 * 3 + 4 * 5")).toBe(26);
    expect(run("(1 + 2) * 3")).toBe(9);
    expect(run("x * 1.8 + 32", 100)).toBe(212);
  });

  it("handles unary minus and plus, also repeated and before parentheses", () => {
    expect(run("-x", 4)).toBe(-4);
    expect(run("--x", 4)).toBe(4);
    expect(run("+x", 4)).toBe(4);
    expect(run("-(x - 10)", 4)).toBe(6);
    expect(run("2 * -3")).toBe(-6);
    expect(run("-2 * 3 + 1")).toBe(-5);
  });

  it("calls the named functions with their arities", () => {
    expect(run("abs(x)", -3)).toBe(3);
    expect(run("min(x, 10, 2)", 5)).toBe(2);
    expect(run("max(x, 10)", 50)).toBe(50);
    expect(run("round(x)", 2.5)).toBe(3);
    expect(run("floor(x)", 2.7)).toBe(2);
    expect(run("ceil(x)", 2.1)).toBe(3);
    expect(run("sqrt(x)", 16)).toBe(4);
    expect(run("pow(x, 2) + pow(2, 3)", 3)).toBe(17);
    expect(run("round(x * 100) / 100", 1.23456)).toBe(1.23);
  });

  it("builds the AST of the grammar", () => {
    expect(parseExpression("-x + 2 * max(1, x)")).toEqual({
      kind: "binary",
      op: "+",
      left: { kind: "negate", operand: { kind: "variable" } },
      right: {
        kind: "binary",
        op: "*",
        left: { kind: "number", value: 2 },
        right: { kind: "call", fn: "max", args: [{ kind: "number", value: 1 }, { kind: "variable" }] },
      },
    });
  });

  it("answers null, never NaN or Infinity, when a step is not a finite number", () => {
    expect(run("x / 0", 1)).toBeNull();
    expect(run("0 / 0")).toBeNull();
    expect(run("x % 0", 5)).toBeNull();
    expect(run("sqrt(x)", -1)).toBeNull();
    expect(run("pow(10, 400)")).toBeNull();
    expect(run("1 / (1 / 0)")).toBeNull();
    expect(run("max(1, 1 / x)", 0)).toBeNull();
    expect(run("x + 1", Number.NaN)).toBeNull();
    expect(run("x * 0", Number.POSITIVE_INFINITY)).toBeNull();
  });

  it("reports the 1-based position of a syntax error", () => {
    expect(errorOf("1 +").position).toBe(4);
    expect(errorOf("1 + * 2").position).toBe(5);
    expect(errorOf("(x + 1").position).toBe(7);
    expect(errorOf("x + 1)").position).toBe(6);
    expect(errorOf("2 x").position).toBe(3);
    expect(errorOf("x $ 2").position).toBe(3);
    expect(errorOf("").message).toBe("at position 1: empty expression");
    expect(errorOf("   ").reason).toBe("empty expression");
    expect(expressionProblem("1 +")).toBe(
      'at position 4: expected a number, x, a function or "(" but found end of expression',
    );
    expect(expressionProblem("x * 2")).toBeUndefined();
  });

  it("refuses unknown names, wrong arities and calling x", () => {
    expect(errorOf("y + 1")).toMatchObject({ position: 1, reason: expect.stringContaining('unknown name "y"') });
    expect(errorOf("X")).toMatchObject({ position: 1 });
    expect(errorOf("ABS(x)")).toMatchObject({ position: 1 });
    expect(errorOf("pow(x)")).toMatchObject({ position: 1, reason: "pow takes 2 arguments, not 1" });
    expect(errorOf("abs(x, 1)").reason).toBe("abs takes 1 argument, not 2");
    expect(errorOf("abs()").position).toBe(5);
    expect(errorOf("sqrt x").reason).toBe('expected "(" after sqrt');
    expect(errorOf("x(1)").reason).toBe('"x" is not a function');
    expect(errorOf("min(1,)").position).toBe(7);
  });

  it("refuses injection attempts: no property access, globals, strings or code", () => {
    for (const attack of [
      "process.exit()",
      "x; process.exit(1)",
      "constructor",
      "x.constructor",
      "globalThis",
      "this",
      "eval('1')",
      "Function('return 1')()",
      "require('fs')",
      "__proto__",
      "toString()",
      "hasOwnProperty(x)",
      "x = 1",
      "[1]",
      "`x`",
      '"1" + 1',
      "x ** 2",
      "x => x",
      "0x10",
    ]) {
      expect(() => parseExpression(attack), attack).toThrow(ExpressionError);
    }
    expect(errorOf("process.exit()")).toMatchObject({
      position: 1,
      reason: expect.stringContaining('unknown name "process"'),
    });
  });

  it("refuses expressions longer than the limit and nested deeper than the limit", () => {
    const long = `x${" + 1".repeat(200)}`;
    expect(long.length).toBeGreaterThan(MAX_EXPRESSION_LENGTH);
    expect(errorOf(long)).toMatchObject({
      position: MAX_EXPRESSION_LENGTH + 1,
      reason: `longer than ${MAX_EXPRESSION_LENGTH} characters`,
    });
    const ok = `${"(".repeat(MAX_EXPRESSION_DEPTH)}x${")".repeat(MAX_EXPRESSION_DEPTH)}`;
    expect(run(ok, 3)).toBe(3);
    const deep = `${"(".repeat(MAX_EXPRESSION_DEPTH + 1)}x${")".repeat(MAX_EXPRESSION_DEPTH + 1)}`;
    expect(errorOf(deep)).toMatchObject({
      position: MAX_EXPRESSION_DEPTH + 1,
      reason: expect.stringContaining("nested deeper"),
    });
    expect(() => parseExpression(`${"-".repeat(MAX_EXPRESSION_DEPTH + 1)}x`)).toThrow(/nested deeper/);
    expect(() =>
      parseExpression(`${"abs(".repeat(MAX_EXPRESSION_DEPTH + 1)}x${")".repeat(MAX_EXPRESSION_DEPTH + 1)}`),
    ).toThrow(/nested deeper/);
  });

  it("refuses a number literal out of range", () => {
    expect(errorOf("1e999")).toMatchObject({ position: 1, reason: "number 1e999 is out of range" });
  });
});
