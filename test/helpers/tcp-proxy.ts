/**
 * A TCP proxy in front of a real server (PostgreSQL here), so a test can take the server away
 * from one application — every connection cut, new ones refused — and bring it back, without
 * stopping the server other test files are using.
 */
import net from 'node:net'

export interface TcpProxy {
  port: number
  /** Cuts every connection and refuses new ones. */
  cut(): Promise<void>
  /** Accepts connections again on the same port. */
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>()
  const track = (socket: net.Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }
  const server = net.createServer((client) => {
    const upstream = net.connect(targetPort, targetHost)
    track(client)
    track(upstream)
    client.pipe(upstream)
    upstream.pipe(client)
    client.on('close', () => upstream.destroy())
    upstream.on('close', () => client.destroy())
  })
  const listen = (port: number) =>
    new Promise<number>((resolve) =>
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
    )
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  const port = await listen(0)
  return {
    port,
    cut: stop,
    restore: async () => {
      await listen(port)
    },
    close: async () => {
      if (server.listening) await stop()
    },
  }
}
