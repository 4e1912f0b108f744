import Foundation
import RelayApp

ProcessMemory.limitMallocArenas()
exit(await RelayCommand.main(CommandLine.arguments))
