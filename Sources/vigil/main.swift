import Foundation
import VigilCommandLine

/// Every `vigil` subcommand, in the order `vigil help` lists them.
let commands: [any Command.Type] = [
    VersionCommand.self,
    ServeCommand.self,
    ProjectsCommand.self,
    UploadSymbolsCommand.self,
    DemoCommand.self,
    LaunchCommand.self,
    SymbolicateCommand.self,
    SymCacheCommand.self,
    SymbolsInfoCommand.self,
    ReportCommand.self,
    BLECommand.self,
]

exit(CommandDispatcher.main(program: "vigil", commands: commands))
