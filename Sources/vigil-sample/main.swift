import Foundation
import VigilCommandLine

/// Every `vigil-sample` scenario, in the order `vigil-sample help` lists them.
let commands: [any Command.Type] = [
    StoreStressCommand.self,
]

exit(CommandDispatcher.main(program: "vigil-sample", commands: commands))
