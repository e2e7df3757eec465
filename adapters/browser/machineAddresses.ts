import { networkInterfaces } from 'node:os'

/** Every address of this machine's network interfaces (what a server listening on 0.0.0.0 or :: answers on). */
export function machineAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address))
}
