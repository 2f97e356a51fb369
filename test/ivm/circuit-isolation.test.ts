// Circuit failure isolation (ivm/circuit.ts): an operator whose step or advance raises an
// isolated error is cut off with everything downstream of it — undone to the last commit and
// skipped for the rest of the tick — while the other operators step on; release removes the
// cut, a rollback ends the quarantine. Both stepping strategies (scan and work list).
import { describe, expect, it } from 'vitest'
import { Circuit, ConcatOperator, EmitOnCloseOperator, InputOperator, IntegrateOperator, MapOperator, ReduceOperator, ZSet, count, sumInt, type OperatorFailure, type Row } from '../../ivm/index.js'

class DataError extends Error {}

function build(scanBelow: number) {
  const circuit = new Circuit({ scanBelow })
  circuit.isolate = (e) => e instanceof DataError
  const rows: ZSet[] = []
  const input = circuit.add(new InputOperator(() => ZSet.empty()))
  circuit.retain(input)
  // [k, v] → per k: sum(v), count; then 60 / sum, which raises on a sum of 0
  const reduce = circuit.add(new ReduceOperator(input, [0], [{ aggregator: sumInt, arg: (r: Row) => r[1] as number }, { aggregator: count, arg: (r: Row) => r[1] as number }], {}))
  const divide = circuit.add(
    new MapOperator(reduce, (r: Row) => {
      if (r[1] === 0) throw new DataError('division by zero')
      return [r[0], 60 / (r[1] as number)]
    }),
  )
  const failing = circuit.add(new IntegrateOperator(divide))
  circuit.retain(failing)
  const healthy = circuit.add(new IntegrateOperator(reduce))
  circuit.retain(healthy)
  // reached from reduce before divide fails: the work list has it queued by then
  const mixed = circuit.add(new IntegrateOperator(circuit.add(new ConcatOperator([reduce, divide]))))
  circuit.retain(mixed)
  const tick = (delta: [Row, number][]): OperatorFailure[] => {
    input.push(new ZSet(delta.map((d) => d[0]), delta.map((d) => d[1])))
    rows.push(input.out)
    circuit.step()
    circuit.endStep()
    return circuit.takeFailures()
  }
  return { circuit, reduce, divide, failing, healthy, mixed, tick }
}

const contents = (op: IntegrateOperator): string[] =>
  op
    .contents()
    .rows.map((r) => JSON.stringify(r))
    .sort()

for (const scanBelow of [256, 0]) {
  describe(`with ${scanBelow === 0 ? 'the work list' : 'a scan'}`, () => {
    it('cuts off the failing operator and what reads it; the rest of the step goes on', () => {
      const { circuit, reduce, divide, failing, healthy, mixed, tick } = build(scanBelow)
      expect(tick([[[1, 10], 1]])).toEqual([])
      circuit.commit()
      // a tick of two steps: the second makes k = 1 sum to 0
      expect(tick([[[2, 5], 1]])).toEqual([])
      const failures = tick([
        [[1, -10], 1],
        [[2, 7], 1],
      ])
      expect(failures.length).toBe(1)
      expect(failures[0]!.operator).toBe(divide)
      expect(failures[0]!.cut.size).toBe(4) // divide, its sink, the concat and its sink
      expect(failures[0]!.cut.has(failing) && failures[0]!.cut.has(mixed)).toBe(true)
      expect(failures[0]!.error).toBeInstanceOf(DataError)
      // the cut is at the last commit (its first step of the tick undone too) …
      expect(contents(failing)).toEqual(['[1,6]'])
      expect(contents(mixed)).toEqual(['[1,10,1]', '[1,6]'])
      // … the rest has both steps
      expect(contents(healthy)).toEqual(['[1,0,2]', '[2,12,2]'])
      expect(circuit.isLive(divide)).toBe(false)
      expect(circuit.isLive(reduce)).toBe(true)
      // skipped for the rest of the tick, however it is fed
      expect(tick([[[2, 1], 1]])).toEqual([])
      expect(contents(failing)).toEqual(['[1,6]'])
      expect(contents(healthy)).toEqual(['[1,0,2]', '[2,13,3]'])
      // released, it is gone; the rest commits
      circuit.release(failing)
      circuit.release(mixed)
      expect(circuit.has(divide)).toBe(false)
      circuit.commit()
      expect(tick([[[3, 1], 1]])).toEqual([])
      expect(contents(healthy)).toEqual(['[1,0,2]', '[2,13,3]', '[3,1,1]'])
    })

    it('a rollback ends the quarantine: the cut is at the last commit like everything else', () => {
      const { circuit, failing, healthy, tick } = build(scanBelow)
      tick([[[1, 10], 1]])
      circuit.commit()
      expect(tick([[[1, -10], 1]]).length).toBe(1)
      circuit.rollback()
      expect(contents(healthy)).toEqual(['[1,10,1]'])
      expect(contents(failing)).toEqual(['[1,6]'])
      expect(tick([[[1, 5], 1]])).toEqual([])
      circuit.commit()
      expect(contents(failing)).toEqual(['[1,4]'])
    })

    it('errors the circuit is not told to isolate fail the step, as before', () => {
      const { circuit, tick } = build(scanBelow)
      circuit.isolate = undefined
      expect(() => tick([[[1, 0], 1]])).toThrow(DataError)
    })
  })
}

it('isolates failures of advance() (operators driven by the watermark) too', () => {
  const circuit = new Circuit()
  circuit.isolate = (e) => e instanceof DataError
  let watermark = 0
  const input = circuit.add(new InputOperator(() => ZSet.empty()))
  const emit = circuit.add(new EmitOnCloseOperator(input, { column: 0, isFinal: (v) => (v as number) <= watermark }))
  const divide = circuit.add(
    new MapOperator(emit, (r: Row) => {
      if (r[1] === 0) throw new DataError('division by zero')
      return [r[0], 10 / (r[1] as number)]
    }),
  )
  const sink = circuit.add(new IntegrateOperator(divide))
  circuit.retain(sink)
  const other = circuit.add(new IntegrateOperator(emit))
  circuit.retain(other)
  input.push(new ZSet([[1, 2], [2, 0]], [1, 1]))
  circuit.step()
  circuit.endStep()
  watermark = 1
  circuit.advance()
  circuit.endStep()
  expect(circuit.takeFailures()).toEqual([])
  expect(contents(sink)).toEqual(['[1,5]'])
  circuit.commit()
  watermark = 2
  circuit.advance()
  circuit.endStep()
  const f = circuit.takeFailures()
  expect(f.map((x) => x.operator)).toEqual([divide])
  expect(contents(other)).toEqual(['[1,2]', '[2,0]'])
  expect(contents(sink)).toEqual(['[1,5]']) // at the last commit
})
