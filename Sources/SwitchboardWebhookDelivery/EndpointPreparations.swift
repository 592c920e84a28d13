import SwitchboardWebhooks

/// A dispatcher thread's memo of what an endpoint's requests need before they
/// go: its URL read (`WebhookURL`) and its secrets decoded (`WebhookSecret`)
/// and made ready to sign (`WebhookSigningKey`), kept while its deliveries
/// carry the same texts. Every delivery of an endpoint carries the same URL
/// and secrets until an admin changes them (a new URL or a rotation shows as
/// different text, and is read again), and reading them afresh for each
/// request took about a tenth of the dispatcher threads' CPU in a capacity
/// drain (`perf`, 2026-11-27); signing with a key set up afresh for each
/// request, as OpenSSL's one-shot HMAC does, took 7% (`perf`, 2026-11-29).
///
/// The thread's own (so are the keys, which are not thread-safe), so no
/// lock. Bounded: past `capacity` endpoints it starts over rather than grow.
struct EndpointPreparations {
    static let capacity = 1_024

    /// Why an endpoint's deliveries cannot be sent: phrased without the secret.
    enum Failure: Error, CustomStringConvertible {
        case url(WebhookURLError)
        case secret(WebhookSecretError)

        var description: String {
            switch self {
            case .url(let error): error.description
            case .secret(let error): error.description
            }
        }
    }

    private struct Entry {
        let url: String
        let secretTexts: [String]
        let prepared: Result<[WebhookSigningKey], Failure>
    }

    private var entries: [String: Entry] = [:]

    /// Endpoints remembered now (at most `capacity`).
    var count: Int { entries.count }

    /// The delivery's secrets, ready to sign, once its URL is known to be valid.
    mutating func signingKeys(for delivery: DueDelivery) -> Result<[WebhookSigningKey], Failure> {
        if let entry = entries[delivery.endpointID], entry.url == delivery.url, entry.secretTexts == delivery.secrets {
            return entry.prepared
        }
        let prepared = Self.prepare(delivery)
        if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
        entries[delivery.endpointID] = Entry(url: delivery.url, secretTexts: delivery.secrets, prepared: prepared)
        return prepared
    }

    private static func prepare(_ delivery: DueDelivery) -> Result<[WebhookSigningKey], Failure> {
        do throws(WebhookURLError) {
            _ = try WebhookURL(parsing: delivery.url)
        } catch {
            return .failure(.url(error))
        }
        do throws(WebhookSecretError) {
            return .success(
                try WebhookRequestHeaders.secrets(of: delivery).map { secret throws(WebhookSecretError) in
                    try WebhookSigningKey(secret)
                })
        } catch {
            return .failure(.secret(error))
        }
    }
}
