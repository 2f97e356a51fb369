// The session settings a client can SHOW and SET, with their defaults; those marked `report`
// are sent to the client as ParameterStatus (as PostgreSQL does for its GUC_REPORT settings).

/** Session settings and their defaults; those marked `report` are sent as ParameterStatus
 *  at startup and when changed (as Postgres does for GUC_REPORT settings). */
export const SETTINGS: ReadonlyArray<{ readonly name: string; readonly value: string; readonly report: boolean }> = [
  { name: 'application_name', value: '', report: true },
  { name: 'client_encoding', value: 'UTF8', report: true },
  { name: 'DateStyle', value: 'ISO, MDY', report: true },
  { name: 'default_transaction_read_only', value: 'off', report: true },
  { name: 'in_hot_standby', value: 'off', report: true },
  { name: 'integer_datetimes', value: 'on', report: true },
  { name: 'IntervalStyle', value: 'postgres', report: true },
  { name: 'is_superuser', value: 'off', report: true },
  { name: 'server_encoding', value: 'UTF8', report: true },
  { name: 'server_version', value: '', report: true },
  { name: 'session_authorization', value: '', report: true },
  { name: 'standard_conforming_strings', value: 'on', report: true },
  { name: 'TimeZone', value: 'UTC', report: true },
  { name: 'server_version_num', value: '150000', report: false },
  { name: 'transaction_isolation', value: 'read committed', report: false },
  { name: 'default_transaction_isolation', value: 'read committed', report: false },
  { name: 'transaction_read_only', value: 'off', report: false },
  { name: 'search_path', value: '"$user", public', report: false },
  { name: 'max_identifier_length', value: '63', report: false },
  { name: 'lc_collate', value: 'C', report: false },
  { name: 'lc_ctype', value: 'C', report: false },
  { name: 'extra_float_digits', value: '1', report: false },
  { name: 'statement_timeout', value: '0', report: false },
  { name: 'lock_timeout', value: '0', report: false },
  { name: 'idle_in_transaction_session_timeout', value: '0', report: false },
  { name: 'bytea_output', value: 'hex', report: false },
  { name: 'client_min_messages', value: 'notice', report: false },
]
