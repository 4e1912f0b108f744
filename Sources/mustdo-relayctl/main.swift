import Foundation
import RelayOperator

exit(await RelayctlCommand.main(CommandLine.arguments))
