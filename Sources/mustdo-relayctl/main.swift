print("mustdo-relayctl")
