import SwitchboardIO

/// The loop as its connections' handlers see it (`ConnectionIO.loop`).
extension EventLoop: ConnectionLoop {}
