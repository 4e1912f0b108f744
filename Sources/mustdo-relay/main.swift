import Foundation
import RelayApp

exit(await RelayCommand.main(CommandLine.arguments))
