import Foundation
import VigilCommandLine

/// Every `vigil` subcommand, in the order `vigil help` lists them.
let commands: [any Command.Type] = [
    VersionCommand.self,
    LaunchCommand.self,
    BLECommand.self,
]

exit(CommandDispatcher.main(program: "vigil", commands: commands))
