import SwitchboardChatCore
import SwitchboardLoop

extension EventLoop: LoopExecutor {}
