// to_char(timestamp, template): PostgreSQL's template patterns (DCH keywords, FM/TH/SP
// modifiers, quoted text), with the parsed template memoized per template text. Apart from
// the other date/time functions because it is a formatter of its own, as large as they are.
//
// Known deviation: timestamp templates only (no numeric or interval templates); time zone
// fields (TZ, OF, TZH, TZM) print nothing.

import { USECS_PER_HOUR, USECS_PER_MINUTE, USECS_PER_SEC, daysFromCivil } from './datetime.js'
import { isoWeek, tmOf } from './datetime-functions.js'

// ---------------------------------------------------------------------------------- to_char

// PG DCH_keywords, in PG's table order (first match wins; longer forms come first)
const TO_CHAR_KEYWORDS = [
  'A.D.', 'A.M.', 'AD', 'AM', 'B.C.', 'BC', 'CC', 'DAY', 'DDD', 'DD', 'DY', 'Day', 'Dy', 'D',
  'FF1', 'FF2', 'FF3', 'FF4', 'FF5', 'FF6', 'FX', 'HH24', 'HH12', 'HH', 'IDDD', 'ID', 'IW',
  'IYYY', 'IYY', 'IY', 'I', 'J', 'MI', 'MM', 'MONTH', 'MON', 'MS', 'Month', 'Mon', 'OF', 'P.M.',
  'PM', 'Q', 'RM', 'SSSSS', 'SSSS', 'SS', 'TZH', 'TZM', 'TZ', 'US', 'WW', 'W', 'Y,YYY', 'YYYY',
  'YYY', 'YY', 'Y', 'a.d.', 'a.m.', 'ad', 'am', 'b.c.', 'bc', 'cc', 'day', 'ddd', 'dd', 'dy', 'd',
  'ff1', 'ff2', 'ff3', 'ff4', 'ff5', 'ff6', 'fx', 'hh24', 'hh12', 'hh', 'iddd', 'id', 'iw', 'iyyy',
  'iyy', 'iy', 'i', 'j', 'mi', 'mm', 'month', 'mon', 'ms', 'of', 'p.m.', 'pm', 'q', 'rm', 'sssss',
  'ssss', 'ss', 'tzh', 'tzm', 'tz', 'us', 'ww', 'w', 'y,yyy', 'yyyy', 'yyy', 'yy', 'y',
]
const KEYWORDS_BY_CHAR = new Map<string, string[]>()
for (const k of TO_CHAR_KEYWORDS) {
  const list = KEYWORDS_BY_CHAR.get(k[0]!) ?? []
  list.push(k)
  KEYWORDS_BY_CHAR.set(k[0]!, list)
}
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
const ROMAN = ['I', 'II', 'III', 'IV', 'V', 'VI', 'VII', 'VIII', 'IX', 'X', 'XI', 'XII']

function ordinal(n: number, upper: boolean): string {
  const a = Math.abs(n) % 100
  const d = a % 10
  const s = a >= 11 && a <= 13 ? 'th' : d === 1 ? 'st' : d === 2 ? 'nd' : d === 3 ? 'rd' : 'th'
  return upper ? s.toUpperCase() : s
}

function caseLike(word: string, kw: string): string {
  if (kw === kw.toUpperCase()) return word.toUpperCase()
  if (kw === kw.toLowerCase()) return word.toLowerCase()
  return word
}

/** A format's last result, reused while the timestamp stays within the finest unit the
 *  format prints (a day for 'YYYY-MM-DD', a minute for 'HH24:MI'): a stream's consecutive
 *  events mostly share it, and formatting is the costly part. */
interface ToCharMemo {
  readonly unit: number
  key: number
  out: string | null
}

const toCharMemos = new Map<string, ToCharMemo>()

/** µs of the finest time unit `fmt` prints; 0 when it prints sub-second fields. Quoted text
 *  is skipped; a letter run that merely contains a field name only makes the unit finer,
 *  which is always safe. */
function toCharUnit(fmt: string): number {
  const f = fmt.replace(/"(?:[^"\\]|\\.)*"?/g, '').toUpperCase()
  if (/US|MS|FF|SSSS/.test(f)) return 0
  if (f.includes('SS')) return USECS_PER_SEC
  if (f.includes('MI')) return USECS_PER_MINUTE
  if (/HH|AM|PM|A\.M\.|P\.M\./.test(f)) return USECS_PER_HOUR
  return USECS_PER_HOUR * 24
}

export function toCharMemo(ts: number, fmt: string): string | null {
  let memo = toCharMemos.get(fmt)
  if (memo === undefined) {
    if (toCharMemos.size >= 256) toCharMemos.clear()
    memo = { unit: toCharUnit(fmt), key: NaN, out: null }
    toCharMemos.set(fmt, memo)
  }
  if (memo.unit === 0 || !Number.isFinite(ts)) return toChar(ts, fmt)
  const key = Math.floor(ts / memo.unit)
  if (key !== memo.key) {
    memo.out = toChar(ts, fmt)
    memo.key = key
  }
  return memo.out
}

/** to_char(timestamp, format) with PG's template patterns (FM/TM prefixes, TH/th suffixes,
 *  "quoted" text). Time zone patterns print nothing (timestamp without time zone). */
function toChar(ts: number, fmt: string): string | null {
  if (!Number.isFinite(ts)) return null
  const t = tmOf(ts)
  const year = t.y > 0 ? t.y : 1 - t.y // BC years print positive
  const hour = Math.floor(t.tod / USECS_PER_HOUR)
  const minute = Math.floor(t.tod / USECS_PER_MINUTE) % 60
  const second = Math.floor(t.tod / USECS_PER_SEC) % 60
  const usec = t.tod % USECS_PER_SEC
  const dow = (((t.days + 4) % 7) + 7) % 7
  const doy = t.days - daysFromCivil(t.y, 1, 1) + 1
  let iso: [number, number] | undefined
  const isoW = () => (iso ??= isoWeek(t.days))
  let out = ''
  let i = 0
  const n = fmt.length
  while (i < n) {
    // one prefix per position (PG): FM suppresses padding, TM (translation) is a no-op
    let fm = false
    const two = fmt.slice(i, i + 2)
    if (two === 'FM' || two === 'fm') {
      fm = true
      i += 2
    } else if (two === 'TM' || two === 'tm') {
      i += 2
    }
    if (i >= n) break
    const c = fmt[i]!
    let kw: string | undefined
    for (const k of KEYWORDS_BY_CHAR.get(c) ?? []) {
      if (fmt.startsWith(k, i)) {
        kw = k
        break
      }
    }
    if (kw === undefined) {
      if (c === '"') {
        i++
        while (i < n && fmt[i] !== '"') {
          if (fmt[i] === '\\' && i + 1 < n) i++
          out += fmt[i]
          i++
        }
        i++
      } else if (c === '\\' && fmt[i + 1] === '"') {
        out += '"'
        i += 2
      } else {
        out += c
        i++
      }
      continue
    }
    i += kw.length
    let num: number | undefined
    let width = 0
    let text: string | undefined
    let ordinalOf: number | undefined
    const K = kw.toUpperCase()
    switch (K) {
      case 'A.D.':
      case 'B.C.':
        text = caseLike(t.y > 0 ? 'A.D.' : 'B.C.', kw)
        break
      case 'AD':
      case 'BC':
        text = caseLike(t.y > 0 ? 'AD' : 'BC', kw)
        break
      case 'A.M.':
      case 'P.M.':
        text = caseLike(hour >= 12 ? 'P.M.' : 'A.M.', kw)
        break
      case 'AM':
      case 'PM':
        text = caseLike(hour >= 12 ? 'PM' : 'AM', kw)
        break
      case 'CC':
        num = t.y > 0 ? Math.floor((t.y + 99) / 100) : -Math.floor((99 - (t.y - 1)) / 100)
        width = 2
        break
      case 'DAY':
        text = caseLike(DAYS[dow]!, kw)
        if (!fm) text = text.padEnd(9)
        break
      case 'DY':
        text = caseLike(DAYS[dow]!.slice(0, 3), kw)
        break
      case 'DDD':
        num = doy
        width = 3
        break
      case 'DD':
        num = t.d
        width = 2
        break
      case 'D':
        num = dow + 1
        break
      case 'FF1':
      case 'FF2':
      case 'FF3':
      case 'FF4':
      case 'FF5':
      case 'FF6': {
        const k = Number(K[2])
        text = String(usec).padStart(6, '0').slice(0, k)
        ordinalOf = Number(text)
        break
      }
      case 'FX':
        text = ''
        break
      case 'HH24':
        num = hour
        width = 2
        break
      case 'HH12':
      case 'HH':
        num = hour % 12 === 0 ? 12 : hour % 12
        width = 2
        break
      case 'IDDD':
        num = (isoW()[1] - 1) * 7 + (dow === 0 ? 7 : dow)
        width = 3
        break
      case 'ID':
        num = dow === 0 ? 7 : dow
        break
      case 'IW':
        num = isoW()[1]
        width = 2
        break
      case 'IYYY':
      case 'IYY':
      case 'IY':
      case 'I': {
        const iy = isoW()[0]
        const y = iy > 0 ? iy : 1 - iy
        width = K.length
        num = K.length === 4 ? y : y % 10 ** K.length
        break
      }
      case 'J':
        num = t.days + 2440588
        break
      case 'MI':
        num = minute
        width = 2
        break
      case 'MM':
        num = t.m
        width = 2
        break
      case 'MONTH':
        text = caseLike(MONTHS[t.m - 1]!, kw)
        if (!fm) text = text.padEnd(9)
        break
      case 'MON':
        text = caseLike(MONTHS[t.m - 1]!.slice(0, 3), kw)
        break
      case 'MS':
        num = Math.floor(usec / 1000)
        width = 3
        break
      case 'OF':
      case 'TZ':
      case 'TZH':
      case 'TZM':
        text = ''
        break
      case 'Q':
        num = Math.floor((t.m - 1) / 3) + 1
        break
      case 'RM':
        text = caseLike(ROMAN[t.m - 1]!, kw)
        if (!fm) text = text.padEnd(4)
        break
      case 'SSSSS':
      case 'SSSS':
        num = Math.floor(t.tod / USECS_PER_SEC)
        break
      case 'SS':
        num = second
        width = 2
        break
      case 'US':
        num = usec
        width = 6
        break
      case 'WW':
        num = Math.floor((doy - 1) / 7) + 1
        width = 2
        break
      case 'W':
        num = Math.floor((t.d - 1) / 7) + 1
        break
      case 'Y,YYY':
        text = `${Math.floor(year / 1000)},${String(year % 1000).padStart(3, '0')}`
        ordinalOf = year
        break
      case 'YYYY':
        num = year
        width = 4
        break
      case 'YYY':
      case 'YY':
      case 'Y':
        num = year % 10 ** K.length
        width = K.length
        break
    }
    if (num !== undefined) {
      const neg = num < 0
      let digits = String(Math.abs(num))
      if (!fm && digits.length < width) digits = digits.padStart(width, '0')
      text = (neg ? '-' : '') + digits
      ordinalOf = num
    }
    // a TH/th suffix is consumed after any keyword, and printed only after numbers
    const suf = fmt.slice(i, i + 2)
    if (suf === 'TH' || suf === 'th') {
      if (ordinalOf !== undefined) text = (text ?? '') + ordinal(ordinalOf, suf === 'TH')
      i += 2
    }
    out += text ?? ''
  }
  return out
}
