import Testing

@testable import LoadKit

@Suite("NodeSpread")
struct NodeSpreadTests {
    @Test("with two nodes or more, no operator shares its visitor's node", arguments: 2...6)
    func visitorAndOperatorsApart(nodes: Int) {
        for session in 0..<60 {
            let visitor = NodeSpread.visitor(session: session, nodes: nodes)
            #expect(visitor == session % nodes)
            for k in 0..<(3 * nodes) {
                let node = NodeSpread.operator(k, session: session, nodes: nodes)
                #expect((0..<nodes).contains(node))
                #expect(node != visitor, "session \(session), operator \(k) of \(nodes) nodes")
            }
        }
    }

    @Test("operators take the other nodes in turn, starting after the visitor's")
    func otherNodesInTurn() {
        // Session i: the visitor on i % n, operator k on (i + 1 + k) % n while there are other nodes left.
        for nodes in 2...6 {
            for session in 0..<20 {
                for k in 0..<(nodes - 1) {
                    #expect(NodeSpread.operator(k, session: session, nodes: nodes) == (session + 1 + k) % nodes)
                }
                // As many operators as other nodes: each other node exactly once.
                let taken = (0..<(nodes - 1)).map { NodeSpread.operator($0, session: session, nodes: nodes) }
                #expect(Set(taken).count == nodes - 1)
            }
        }
        // Three nodes, three operators: the fourth participant wraps round to the first other node.
        #expect((0..<3).map { NodeSpread.operator($0, session: 0, nodes: 3) } == [1, 2, 1])
        #expect((0..<3).map { NodeSpread.operator($0, session: 2, nodes: 3) } == [0, 1, 0])
    }

    @Test("one node takes everyone")
    func oneNode() {
        for session in 0..<10 {
            #expect(NodeSpread.visitor(session: session, nodes: 1) == 0)
            for k in 0..<5 { #expect(NodeSpread.operator(k, session: session, nodes: 1) == 0) }
        }
    }

    @Test("visitors, and so the sessions they create, are spread evenly")
    func visitorsEven() {
        var counts = [0, 0, 0]
        for session in 0..<300 { counts[NodeSpread.visitor(session: session, nodes: 3)] += 1 }
        #expect(counts == [100, 100, 100])
    }

    @Test("a population puts each participant on its node, counted from the run-wide session number")
    func population() throws {
        let nodes = (0..<3).map { GatewayEndpoint(port: UInt16(9001 + $0), path: "/v1/ws") }
        let loop = try ClientLoop(port: 9001, path: "/v1/ws")
        let shard = Shard(loop: loop, nodes: nodes, bodyBytes: 64, timelineStart: 0)
        // The second shard of a run whose first made 5 sessions.
        let population = Population(
            shard: shard, sessions: 4, operatorsPerSession: 2, firstIndex: 1 << 20, firstSession: 5, secret: "s",
            workspace: "00000000-0000-4000-8000-000000000001")
        #expect(population.visitors.map(\.node) == [2, 0, 1, 2])
        for visitor in population.visitors {
            let operators = population.operators.filter { $0.session == visitor.session }
            #expect(operators.count == 2)
            #expect(operators.allSatisfy { $0.node != visitor.node })
            #expect(Set(operators.map(\.node)).count == 2)
        }
        #expect(population.perNode == [4, 4, 4])
        #expect(shard.participants.count == 12)
    }
}
