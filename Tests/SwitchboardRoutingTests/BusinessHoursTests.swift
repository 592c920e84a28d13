import Foundation
import SwitchboardRouting
import Testing

/// Opening hours over the system's tz database (the TZif files tzdata
/// installs): across daylight-saving changes, closed dates, midnight and weeks.
@Suite struct BusinessHoursTests {
    static func zone(_ name: String) throws -> ZoneRules {
        let data = try Data(contentsOf: URL(fileURLWithPath: "/usr/share/zoneinfo/" + name))
        return try ZoneRules(tzif: Array(data))
    }

    /// Unix seconds of a UTC wall time.
    static func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> Int64 {
        CivilDate(year: year, month: month, dayOfMonth: day)!.day * 86400 + Int64(hour * 3600 + minute * 60)
    }

    static func hours(
        _ weekly: [String: [[String]]], closed: [String] = [], zone: String = "Europe/Berlin"
    ) throws
        -> BusinessHours
    {
        try BusinessHours(timeZone: zone, weekly: weekly, closedDates: closed)
    }

    static let weekdays: [String: [[String]]] = [
        "mon": [["09:00", "17:30"]], "tue": [["09:00", "17:30"]], "wed": [["09:00", "17:30"]],
        "thu": [["09:00", "17:30"]], "fri": [["09:00", "17:30"]],
    ]

    @Test func berlinOffsetsAcrossBothChangesOf2026AndAfterTheTable() throws {
        let berlin = try Self.zone("Europe/Berlin")
        #expect(berlin.offset(at: Self.utc(2026, 3, 29, 0, 59)) == 3600)
        #expect(berlin.offset(at: Self.utc(2026, 3, 29, 1, 0)) == 7200)
        #expect(berlin.offset(at: Self.utc(2026, 10, 25, 0, 59)) == 7200)
        #expect(berlin.offset(at: Self.utc(2026, 10, 25, 1, 0)) == 3600)
        // Past the file's last transition its TZ string (CET-1CEST,M3.5.0,M10.5.0/3) answers.
        #expect(berlin.offset(at: Self.utc(2040, 7, 1, 12)) == 7200)
        #expect(berlin.offset(at: Self.utc(2040, 12, 1, 12)) == 3600)
    }

    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Tokyo"])
    func theTZStringAgreesWithTheTableEveryHourOfTenYears(name: String) throws {
        let zone = try Self.zone(name)
        let rule = try #require(zone.rule)
        var instant = Self.utc(2026, 1, 1, 0)
        let end = Self.utc(2036, 1, 1, 0)
        var disagreements = 0
        while instant < end {
            if rule.offset(at: instant) != zone.offset(at: instant) { disagreements += 1 }
            instant += 3600
        }
        #expect(disagreements == 0)
    }

    @Test func aNonExistent0230OpensWhenTheClockJumpsPastIt() throws {
        // 2026-03-29 in Berlin: 02:00 CET becomes 03:00 CEST (01:00 UTC); 02:30 never happens.
        let zone = try Self.zone("Europe/Berlin")
        let hours = try Self.hours(["sun": [["02:30", "05:00"]]])
        let before = Self.utc(2026, 3, 29, 0, 45)  // 01:45 CET
        #expect(hours.state(at: before, offset: zone.offset(at:)) == .closed(opensAt: Self.utc(2026, 3, 29, 1, 0)))
        #expect(hours.isOpen(at: Self.utc(2026, 3, 29, 1, 0), offset: zone.offset(at:)))
        // An interval wholly inside the gap never opens that day: the next Sunday's does.
        let lost = try Self.hours(["sun": [["02:10", "02:50"]]])
        #expect(
            lost.state(at: before, offset: zone.offset(at:)) == .closed(opensAt: Self.utc(2026, 4, 5, 0, 10)))
    }

    @Test func aRepeated0230OpensBothTimes() throws {
        // 2026-10-25 in Berlin: 03:00 CEST becomes 02:00 CET (01:00 UTC); 02:00-03:00 happens twice.
        let zone = try Self.zone("Europe/Berlin")
        let hours = try Self.hours(["sun": [["02:30", "02:45"]]])
        let first = Self.utc(2026, 10, 25, 0, 30)  // 02:30 CEST
        let second = Self.utc(2026, 10, 25, 1, 30)  // 02:30 CET
        #expect(hours.state(at: Self.utc(2026, 10, 25, 0, 0), offset: zone.offset(at:)) == .closed(opensAt: first))
        #expect(hours.isOpen(at: first, offset: zone.offset(at:)))
        #expect(hours.state(at: Self.utc(2026, 10, 25, 0, 50), offset: zone.offset(at:)) == .closed(opensAt: second))
        #expect(hours.isOpen(at: second + 60, offset: zone.offset(at:)))
    }

    @Test func nineOClockFollowsTheClockInBerlinAndNewYork() throws {
        let berlin = try Self.zone("Europe/Berlin")
        let hours = try Self.hours(Self.weekdays)
        // Friday before the change 09:00 CET is 08:00 UTC; Monday after it 09:00 CEST is 07:00 UTC.
        #expect(hours.isOpen(at: Self.utc(2026, 3, 27, 8, 0), offset: berlin.offset(at:)))
        #expect(!hours.isOpen(at: Self.utc(2026, 3, 27, 7, 59), offset: berlin.offset(at:)))
        #expect(
            hours.state(at: Self.utc(2026, 3, 27, 17, 0), offset: berlin.offset(at:))
                == .closed(opensAt: Self.utc(2026, 3, 30, 7, 0)))
        #expect(!hours.isOpen(at: Self.utc(2026, 3, 27, 16, 30), offset: berlin.offset(at:)), "17:30 CET")

        let newYork = try Self.zone("America/New_York")
        let office = try Self.hours(Self.weekdays, zone: "America/New_York")
        // Friday 2026-03-06 17:30 EST = 22:30 UTC; clocks go forward on Sunday 03-08; Monday 09:00 EDT = 13:00 UTC.
        #expect(
            office.state(at: Self.utc(2026, 3, 6, 22, 30), offset: newYork.offset(at:))
                == .closed(opensAt: Self.utc(2026, 3, 9, 13, 0)))
        // And back on 11-01: Monday 11-02 09:00 EST = 14:00 UTC.
        #expect(
            office.state(at: Self.utc(2026, 10, 30, 22, 0), offset: newYork.offset(at:))
                == .closed(opensAt: Self.utc(2026, 11, 2, 14, 0)))
    }

    @Test func closedDatesAreSkipped() throws {
        let berlin = try Self.zone("Europe/Berlin")
        let hours = try Self.hours(Self.weekdays, closed: ["2026-12-25", "2026-12-28", "2026-12-29"])
        #expect(!hours.isOpen(at: Self.utc(2026, 12, 25, 10), offset: berlin.offset(at:)))
        // Thursday 24th after hours: Friday, Monday and Tuesday are closed; Wednesday 30th 09:00 CET.
        #expect(
            hours.state(at: Self.utc(2026, 12, 24, 17), offset: berlin.offset(at:))
                == .closed(opensAt: Self.utc(2026, 12, 30, 8)))
    }

    @Test func aWeekAwayAndNever() throws {
        let berlin = try Self.zone("Europe/Berlin")
        let wednesdays = try Self.hours(["wed": [["10:00", "11:00"]]])
        // Wednesday 2026-11-25 11:00 CET (10:00 UTC) just closed: next Wednesday.
        #expect(
            wednesdays.state(at: Self.utc(2026, 11, 25, 10), offset: berlin.offset(at:))
                == .closed(opensAt: Self.utc(2026, 12, 2, 9)))
        let skipped = try Self.hours(["wed": [["10:00", "11:00"]]], closed: ["2026-12-02", "2026-12-09"])
        #expect(
            skipped.state(at: Self.utc(2026, 11, 25, 10), offset: berlin.offset(at:))
                == .closed(opensAt: Self.utc(2026, 12, 16, 9)))
        let never = try Self.hours([:])
        #expect(never.state(at: Self.utc(2026, 11, 25, 10), offset: berlin.offset(at:)) == .closed(opensAt: nil))
    }

    @Test func acrossMidnightIsTwoIntervalsThatTouch() throws {
        let berlin = try Self.zone("Europe/Berlin")
        let nights = try Self.hours(["mon": [["22:00", "24:00"]], "tue": [["00:00", "02:00"]]])
        // Monday 2026-11-23 23:59 CET and Tuesday 00:30 CET are open; Tuesday 02:00 CET is not.
        #expect(nights.isOpen(at: Self.utc(2026, 11, 23, 22, 59), offset: berlin.offset(at:)))
        #expect(nights.isOpen(at: Self.utc(2026, 11, 23, 23, 30), offset: berlin.offset(at:)))
        #expect(
            nights.state(at: Self.utc(2026, 11, 24, 1, 0), offset: berlin.offset(at:))
                == .closed(opensAt: Self.utc(2026, 11, 30, 21, 0)))
    }

    @Test(arguments: [
        (["mon": [["09:00", "12:00"], ["11:00", "13:00"]]], [String]()),
        (["mon": [["13:00", "14:00"], ["09:00", "12:00"]]], []),
        (["mon": [["17:00", "09:00"]]], []),
        (["mon": [["09:00", "09:00"]]], []),
        (["mon": [["9:00", "12:00"]]], []),
        (["mon": [["09:00", "24:01"]]], []),
        (["mon": [["24:00", "24:00"]]], []),
        (["mon": [["09:00"]]], []),
        (["monday": [["09:00", "12:00"]]], []),
        ([:], ["2026-02-30"]),
        ([:], ["25.12.2026"]),
    ])
    func refusesWhatIsNotASchedule(weekly: [String: [[String]]], closed: [String]) {
        #expect(throws: BusinessHoursError.self) { try Self.hours(weekly, closed: closed) }
    }

    @Test func refusesZoneNamesThatAreNotNames() {
        for name in ["", "../etc/passwd", "/etc/localtime", "Europe/../../x", "Europe//Berlin", "Europe/Berlin\u{0}"] {
            #expect(!BusinessHours.isZoneName(name), "\(name)")
        }
        for name in ["Europe/Berlin", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "UTC"] {
            #expect(BusinessHours.isZoneName(name), "\(name)")
        }
    }
}
