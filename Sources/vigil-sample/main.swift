import Foundation
import VigilCommandLine

/// Every `vigil-sample` scenario, in the order `vigil-sample help` lists them.
let commands: [any Command.Type] = [
    HangCommand.self,
    FramesCommand.self,
    LaunchCommand.self,
    WorkCommand.self,
    ReportCommand.self,
    StoreStressCommand.self,
    CrashCommand.self,
    NetworkCommand.self,
    SessionCommand.self,
]

exit(CommandDispatcher.main(program: "vigil-sample", commands: commands))
