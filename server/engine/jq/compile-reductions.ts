/** Compilation of `reduce SOURCE as $p (INIT; UPDATE)` and `foreach SOURCE as $p (INIT; UPDATE; EXTRACT)`. */
import type { NodeOf } from './ast.ts';
import type { Path } from './path-ops.ts';
import { fromGen, fromOne, invalidPath, tick } from './runtime.ts';
import type { Compiled, Env, PathGen } from './types.ts';
import type { JqValue } from './values.ts';
import type { Binder } from './compile-bindings.ts';
import { compilePattern, scopeWithPattern } from './compile-bindings.ts';
import type { Compiler } from './compile.ts';
import type { Scope } from './scope.ts';

/**
 * Path mode's loop: calls `step` with the environment of each binding of each source output. Value mode spells
 * the same loop out, because the extra call per element costs about half of a small reduce's time.
 */
function eachBinding(src: Compiled, bind: Binder, x: JqValue, env: Env | null, step: (e: Env | null) => void): void {
  src.gen(x, env, (v) =>
    bind(v, env, (e) => {
      tick();
      step(e);
    }),
  );
}

export function compileReduce(c: Compiler, node: NodeOf<'reduce'>, scope: Scope | null): Compiled {
  const src = c.compile(node.source, scope);
  const init = c.compile(node.init, scope);
  const update = c.compile(node.update, scopeWithPattern(scope, node.pattern));
  const bind = compilePattern(c, node.pattern, scope);
  const run = (x: JqValue, env: Env | null, start: JqValue): JqValue => {
    let acc = start;
    src.gen(x, env, (v) =>
      bind(v, env, (e) => {
        tick();
        // the state becomes the last output of the update, or null when it has none
        let last: JqValue = null;
        if (update.one) last = update.one(acc, e);
        else update.gen(acc, e, (u) => {
          last = u;
        });
        acc = last;
      }),
    );
    return acc;
  };
  const path = (): PathGen => {
    const ip = init.path();
    const up = update.path();
    return (x, p, env, emit) =>
      ip(x, p, env, (v0, p0) => {
        let acc = v0;
        let accPath = p0;
        eachBinding(src, bind, x, env, (e) => {
          let lv: JqValue = null;
          let lp: Path | null = null;
          up(acc, accPath, e, (u, q) => {
            lv = u;
            lp = q;
          });
          if (lp === null) invalidPath(null);
          acc = lv;
          accPath = lp;
        });
        emit(acc, accPath);
      });
  };
  if (init.one) {
    const io = init.one;
    return fromOne((x, env) => run(x, env, io(x, env)), path);
  }
  return fromGen((x, env, emit) => init.gen(x, env, (s) => emit(run(x, env, s))), path);
}

export function compileForeach(c: Compiler, node: NodeOf<'foreach'>, scope: Scope | null): Compiled {
  const src = c.compile(node.source, scope);
  const init = c.compile(node.init, scope);
  const inner = scopeWithPattern(scope, node.pattern);
  const update = c.compile(node.update, inner);
  const extract = node.extract ? c.compile(node.extract, inner) : null;
  const bind = compilePattern(c, node.pattern, scope);
  return fromGen(
    (x, env, emit) =>
      init.gen(x, env, (start) => {
        let acc = start;
        src.gen(x, env, (v) =>
          bind(v, env, (e) => {
            tick();
            update.gen(acc, e, (u) => {
              acc = u;
              if (extract) extract.gen(u, e, emit);
              else emit(u);
            });
          }),
        );
      }),
    () => {
      const ip = init.path();
      const up = update.path();
      const xp = extract ? extract.path() : null;
      return (x, p, env, emit) =>
        ip(x, p, env, (v0, p0) => {
          let acc = v0;
          let accPath = p0;
          eachBinding(src, bind, x, env, (e) =>
            up(acc, accPath, e, (u, q) => {
              acc = u;
              accPath = q;
              if (xp) xp(u, q, e, emit);
              else emit(u, q);
            }),
          );
        });
    },
  );
}
