print("cloudkit-emulator: not built yet")
