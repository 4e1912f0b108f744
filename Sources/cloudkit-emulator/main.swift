import Foundation
import RelayEmulator

exit(await EmulatorCommand.main(CommandLine.arguments))
