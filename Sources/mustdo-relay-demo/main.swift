import Foundation
import RelayDemo
import RelayService

ProcessMemory.limitMallocArenas()
exit(await DemoCommand.main(CommandLine.arguments))
