import Testing

@testable import LoadKit

@Suite("The host's writeback as a section quotes it")
struct HostWritebackTests {
    @Test("a threshold in bytes is quoted in bytes, the default ratio as a share of memory")
    func describesEitherThreshold() {
        let smoothed = HostWriteback(
            backgroundBytes: 16 << 20, backgroundRatio: 0, expireCentiseconds: 300, writebackCentiseconds: 100)
        #expect(
            smoothed.description
                == "background writeback from 16 MiB dirty, pages written when 3 s old, checked every 1 s")
        let defaults = HostWriteback(
            backgroundBytes: 0, backgroundRatio: 10, expireCentiseconds: 3000, writebackCentiseconds: 500)
        #expect(
            defaults.description
                == "background writeback from 10% of memory dirty, pages written when 30 s old, checked every 5 s")
        #expect(HostWriteback(expireCentiseconds: 250).description == "unknown (no /proc/sys/vm)")
    }

    @Test("it reads this machine's /proc/sys/vm")
    func readsTheHost() {
        let now = HostWriteback.now()
        #expect(now.expireCentiseconds != nil && now.writebackCentiseconds != nil)
        #expect((now.backgroundBytes ?? 0) > 0 || now.backgroundRatio != nil)
    }
}
