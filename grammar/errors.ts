// The one error type every layer that handles SQL text throws. It lives in the bottom layer
// (grammar) so the parser can throw it without importing anything of ours; planner and src
// re-export it. `code` is a Postgres SQLSTATE, `position` is 1-based (line, column) into the SQL
// text the error is about, when there is one.

export interface SourcePosition {
  readonly line: number
  readonly column: number
  /** 0-based character offset into the statement text. */
  readonly offset: number
}

export class RivuletError extends Error {
  readonly code: string
  readonly position: SourcePosition | undefined
  /** Secondary detail, printed by psql-like front ends as `DETAIL:  ...`. */
  readonly detail: string | undefined

  constructor(code: string, message: string, position?: SourcePosition, detail?: string) {
    super(message)
    this.name = 'RivuletError'
    this.code = code
    this.position = position
    this.detail = detail
  }
}

/** SQLSTATE codes used across the layers (Postgres appendix A). */
export const SqlState = {
  syntaxError: '42601',
  undefinedTable: '42P01',
  undefinedColumn: '42703',
  undefinedFunction: '42883',
  ambiguousColumn: '42702',
  duplicateTable: '42P07',
  duplicateSchema: '42P06',
  undefinedSchema: '3F000',
  invalidName: '42602',
  duplicateColumn: '42701',
  duplicateObject: '42710',
  datatypeMismatch: '42804',
  groupingError: '42803',
  invalidColumnReference: '42P10',
  wrongObjectType: '42809',
  featureNotSupported: '0A000',
  uniqueViolation: '23505',
  notNullViolation: '23502',
  divisionByZero: '22012',
  numericValueOutOfRange: '22003',
  invalidTextRepresentation: '22P02',
  invalidDatetimeFormat: '22007',
  datetimeFieldOverflow: '22008',
  cardinalityViolation: '21000',
  invalidParameterValue: '22023',
  stringDataRightTruncation: '22001',
  activeSqlTransaction: '25001',
  noActiveSqlTransaction: '25P01',
  dependentObjectsStillExist: '2BP01',
  internalError: 'XX000',
  undefinedObject: '42704',
  windowingError: '42P20',
  cannotCoerce: '42846',
  invalidRowCountInLimit: '2201W',
  invalidPrecedingOrFollowingSize: '22013',
  invalidArgumentForNthValue: '22016',
  invalidArgumentForNtile: '22014',
  readOnlyTransaction: '25006',
  objectNotInPrerequisiteState: '55000',
  invalidArgumentForLogarithm: '2201E',
  invalidArgumentForPowerFunction: '2201F',
  characterNotInRepertoire: '22021',
  ioError: '58030',
  dataCorrupted: 'XX001',
  lockNotAvailable: '55P03',
  statementTooComplex: '54001',
  tooManyArguments: '54023',
} as const

/** Converts a 0-based offset into a 1-based (line, column) position in `text`. */
export function positionAt(text: string, offset: number): SourcePosition {
  let line = 1
  let lineStart = 0
  const end = Math.min(offset, text.length)
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++
      lineStart = i + 1
    }
  }
  return { line, column: end - lineStart + 1, offset }
}
