import SwitchboardHTTP
import Testing

@Suite("HTTPRouter")
struct HTTPRouterTests {
    static let router: HTTPRouter<String> = {
        var router = HTTPRouter<String>()
        router.add(.get, "/healthz", "health")
        router.add(.get, "/api/v1/sessions/{id}/messages", "history")
        router.add(.patch, "/api/v1/sessions/{id}", "patch")
        router.add(.delete, "/api/v1/sessions/{id}", "delete")
        router.add(.get, "/api/v1/sessions/search", "search")
        router.add(.get, "/", "root")
        return router
    }()

    @Test func literalRoute() {
        guard case .found(let handler, let parameters) = Self.router.match(method: .get, path: "/healthz") else {
            Issue.record("no match")
            return
        }
        #expect(handler == "health")
        #expect(parameters.isEmpty)
    }

    @Test func parameters() {
        let match = Self.router.match(method: .get, path: "/api/v1/sessions/9f0e-1/messages")
        guard case .found(let handler, let parameters) = match else {
            Issue.record("no match: \(match)")
            return
        }
        #expect(handler == "history")
        #expect(parameters == ["id": "9f0e-1"])
    }

    @Test func parameterValuesArePercentDecoded() {
        guard case .found(_, let parameters) = Self.router.match(method: .patch, path: "/api/v1/sessions/a%2Fb+c")
        else {
            Issue.record("no match")
            return
        }
        #expect(parameters["id"] == "a/b+c")
    }

    @Test func literalBeatsParameter() {
        guard case .found(let handler, _) = Self.router.match(method: .get, path: "/api/v1/sessions/search") else {
            Issue.record("no match")
            return
        }
        #expect(handler == "search")
    }

    @Test func methodNotAllowedListsTheAllowedMethods() {
        let match = Self.router.match(method: .post, path: "/api/v1/sessions/42")
        guard case .methodNotAllowed(let allowed) = match else {
            Issue.record("expected 405, got \(match)")
            return
        }
        #expect(allowed == [.patch, .delete])
        let getOnly = Self.router.match(method: .put, path: "/healthz")
        guard case .methodNotAllowed(let allowedGet) = getOnly else {
            Issue.record("expected 405, got \(getOnly)")
            return
        }
        #expect(allowedGet == [.get, .head])
        #expect(HTTPRouteMatch<String>.allowHeader(allowedGet) == "GET, HEAD")
    }

    @Test func headMatchesGetRoutes() {
        guard
            case .found(let handler, let parameters) = Self.router.match(
                method: .head, path: "/api/v1/sessions/7/messages")
        else {
            Issue.record("HEAD did not match GET")
            return
        }
        #expect(handler == "history")
        #expect(parameters == ["id": "7"])
    }

    @Test func explicitHeadRouteWinsOverGet() {
        var router = HTTPRouter<Int>()
        router.add(.get, "/x", 1)
        router.add(.head, "/x", 2)
        guard case .found(let handler, _) = router.match(method: .head, path: "/x") else {
            Issue.record("no match")
            return
        }
        #expect(handler == 2)
    }

    @Test(arguments: ["/nope", "/healthz/", "/api/v1/sessions//messages", "/api/v1/sessions", "", "/HEALTHZ"])
    func notFound(path: String) {
        guard case .notFound = Self.router.match(method: .get, path: path) else {
            Issue.record("expected 404 for \(path)")
            return
        }
    }

    @Test func rootRoute() {
        guard case .found(let handler, _) = Self.router.match(method: .get, path: "/") else {
            Issue.record("no match")
            return
        }
        #expect(handler == "root")
    }

    @Test func firstRegistrationWinsForDuplicates() {
        var router = HTTPRouter<Int>()
        router.add(.get, "/a/{x}", 1)
        router.add(.get, "/a/{y}", 2)
        router.add(.get, "/a/{x}", 3)
        guard case .found(let handler, let parameters) = router.match(method: .get, path: "/a/b") else {
            Issue.record("no match")
            return
        }
        #expect(handler == 1)
        #expect(parameters == ["x": "b"])
    }
}
