/** Types of the demo notes site (server.mjs); its routes are documented at the top of that file. */
export interface DemoSite {
  /** `http://127.0.0.1:<port>` */
  url: string
  port: number
  close(): Promise<void>
}

/** Starts the demo site on 127.0.0.1; `port: 0` (the default) picks a free port. */
export function startDemoSite(options?: { port?: number }): Promise<DemoSite>
