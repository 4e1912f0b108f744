import Foundation
import RelayApp

exit(await RelayctlCommand.main(CommandLine.arguments))
