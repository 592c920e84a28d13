import SwitchboardRouting

/// Calendar arithmetic for the protocol's RFC 3339 times, without Foundation.
/// (Times the gateway sends are formatted by PostgreSQL itself, with `to_char`.)
/// The arithmetic is `CivilDate`'s (Howard Hinnant's proleptic Gregorian days
/// since 1970-01-01); public for the HTTP API's time parameters.
public enum ChatTimestamp {
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        Int(CivilDate.days(year: year, month: month, dayOfMonth: day))
    }

    public static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        CivilDate(day: Int64(days)).civil
    }

    public static func daysInMonth(year: Int, month: Int) -> Int {
        CivilDate.daysIn(year: year, month: month)
    }
}
