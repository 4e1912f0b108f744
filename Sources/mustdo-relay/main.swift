import Foundation
import RelayService

ProcessMemory.limitMallocArenas()
exit(await RelayCommand.main(CommandLine.arguments))
