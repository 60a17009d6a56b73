/**
 * `bridge workflow <list|show|run|rm|rename|set|export|import>`: saved workflows (docs/workflows.md). cac has no
 * nested commands, so `bridge` hands everything after `workflow` to this small program.
 *
 * Exit codes, for scripts: 0 done; 1 usage or a file problem; 2 a run stopped at a step (the report
 * is printed); 3 a run refused before any step (permission off, denied, a missing variable);
 * 4 no daemon answers.
 *
 * @example
 *   bridge workflow list
 *   bridge workflow set sign_in_and_search auto
 *   bridge workflow run sign_in_and_search --var query=lamps --var password="$PW"
 */
import { cac } from 'cac'
import { errorText, fail } from '../shared/output'
import {
  exportWorkflow,
  importWorkflow,
  type ExportFlags,
  listWorkflows,
  removeWorkflow,
  renameWorkflow,
  setWorkflow,
  showWorkflow,
  type WorkflowFlags,
} from './workflow/files'
import { runWorkflow, type RunFlags } from './workflow/run'

/** Runs `bridge workflow ...`; sets process.exitCode. */
export async function runWorkflowCommand(args: readonly string[]): Promise<void> {
  const cli = cac('bridge workflow')
  const port = '--port <port>'
  const portHelp = 'Port of a running daemon (default: BRIDGE_PORT, config.json, 9515)'
  cli
    .command('list', 'List saved workflows with their permission, steps and variables')
    .alias('ls')
    .option('--json', 'Print JSON')
    .action((flags: WorkflowFlags) => listWorkflows(flags))
  cli
    .command('show <name>', 'A workflow step by step in words, its variables and its history')
    .option('--json', 'Print the file')
    .action((name: string, flags: WorkflowFlags) => showWorkflow(String(name), flags))
  cli
    .command('run <name>', 'Replay a workflow in the browser through the running daemon')
    .option('--var <key=value>', 'A variable (repeat for more); others take their recorded values')
    .option('--tab <tabId>', 'Tab to run in (default: the active tab)')
    .option('--json', 'Print the result as JSON')
    .option(port, portHelp)
    .action((name: string, flags: RunFlags) => runWorkflow(String(name), flags))
  cli
    .command('rm <name>', 'Delete a workflow')
    .alias('remove')
    .option(port, portHelp)
    .action((name: string, flags: WorkflowFlags) => removeWorkflow(String(name), flags))
  cli
    .command('rename <from> <to>', 'Rename a workflow (and its tool workflow_<name>)')
    .option(port, portHelp)
    .action((from: string, to: string, flags: WorkflowFlags) =>
      renameWorkflow(String(from), String(to), flags),
    )
  cli
    .command('set <name> <permission>', 'Turn a workflow off, or on as ask or auto')
    .option(port, portHelp)
    .action((name: string, permission: string, flags: WorkflowFlags) =>
      setWorkflow(String(name), String(permission), flags),
    )
  cli
    .command('export <name>', 'Print the workflow as Chrome DevTools Recorder JSON or a Playwright test')
    .option('--format <format>', 'recorder (default) or playwright')
    .option('--var <key=value>', 'A value to export instead of the recorded one (secrets have none)')
    .action((name: string, flags: ExportFlags) => exportWorkflow(String(name), flags))
  cli
    .command('import <file>', 'Read a Chrome DevTools Recorder user flow (JSON) as a new workflow, off')
    .option('--name <name>', 'The workflow name (default: from the flow title)')
    .option(port, portHelp)
    .action((file: string, flags: WorkflowFlags & { name?: string }) => importWorkflow(String(file), flags))
  cli.help()
  try {
    cli.parse(['node', 'bridge workflow', ...args], { run: false })
    if (!cli.matchedCommand) {
      if (cli.options.help) return
      if (args.length) return fail(`unknown workflow command "${args[0]}"; see \`bridge workflow --help\``)
      return listWorkflows(cli.options)
    }
    await cli.runMatchedCommand()
  } catch (error) {
    fail(errorText(error))
  }
}
