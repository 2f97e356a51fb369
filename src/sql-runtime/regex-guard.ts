// Bounds the cost of one regular-expression match. JS RegExp backtracks: `^(a+)+$` against
// 'aaaa…!' takes time doubling with each `a`, and nothing can interrupt a running match on
// the thread that runs it. Two defences, chosen per pattern when it is compiled:
//
// 1. Linear engine. V8 ships a non-backtracking engine (automaton simulation, linear in the
//    text; the `l` flag, enabled here by a V8 option), which gives the same results as the
//    backtracking engine for the patterns it accepts: no back references, no lookaround, and
//    neither the `u` nor the `i` flag. A translated pattern that needs `u` only for code-point
//    semantics (no \p{…} property classes, no characters outside the BMP in it) behaves
//    identically without `u` on a text without surrogate pairs; such texts (nearly all) are
//    matched by its linear variant.
// 2. Time budget. Any other match of a pattern with a quantifier or a back reference (the
//    only ones that can backtrack much) runs under a V8 watchdog (node:vm with a timeout)
//    that interrupts it after `regexBudget.ms` milliseconds; it then fails with 54001. This
//    costs a watchdog thread per match (~0.2 ms), hence only for those patterns.
// A pattern without quantifiers (nor back references) matches in O(text × pattern) and runs
// directly.

import v8 from 'node:v8'
import vm from 'node:vm'
import { RivuletError } from '../../grammar/errors.js'

v8.setFlagsFromString('--enable-experimental-regexp-engine')

/** The longest one match may run when it cannot use the linear engine (tests lower it). */
export const regexBudget = { ms: 1000 }

/** How a compiled pattern is matched. */
export interface MatchPlan {
  /** The pattern without `u`, on the linear engine (for texts without surrogates). */
  readonly linear: RegExp | undefined
  /** Matches that cannot use `linear` run under the time budget. */
  readonly guarded: boolean
}

/** Chooses the plan for a translated pattern (`source`, compiled with flags gsu / gisu). */
export function matchPlan(source: string, icase: boolean): MatchPlan {
  const mayBacktrack = /[*+?{]|\\[1-9]/.test(source)
  if (!mayBacktrack) return { linear: undefined, guarded: false }
  let linear: RegExp | undefined
  if (!icase && !/\\[pPu]\{|\\u\{|[\ud800-\udfff]/.test(source)) {
    try {
      linear = new RegExp(source, 'gsl')
    } catch {
      // back references or lookaround: not for the linear engine
    }
  }
  return { linear, guarded: true }
}

const SURROGATE = /[\ud800-\udfff]/

/** The RegExp to run on `s`, or undefined when the match must be guarded. */
export function regexFor(re: RegExp, plan: MatchPlan, s: string): RegExp | undefined {
  if (plan.linear !== undefined && !SURROGATE.test(s)) return plan.linear
  return plan.guarded ? undefined : re
}

const context = vm.createContext({ re: null as RegExp | null, s: '', from: 0, out: null as RegExpExecArray | null })
const script = new vm.Script('re.lastIndex = from; out = re.exec(s)')

/** `re.exec(s)` from `from`, interrupted after the budget (54001). */
export function guardedExec(re: RegExp, s: string, from: number): RegExpExecArray | null {
  const c = context as { re: RegExp | null; s: string; from: number; out: RegExpExecArray | null }
  c.re = re
  c.s = s
  c.from = from
  c.out = null
  try {
    script.runInContext(context, { timeout: regexBudget.ms })
    return c.out
  } catch (e) {
    if ((e as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') {
      throw new RivuletError('54001', `regular expression match took longer than ${regexBudget.ms} ms`, undefined, 'The pattern backtracks heavily on this text (nested quantifiers such as (a+)+ are the usual cause); simplify it.')
    }
    throw e
  } finally {
    c.re = null
    c.s = ''
    c.out = null
  }
}
