import type { Permission } from '../shared/wireTypes'

const VALUES: Permission[] = ['off', 'ask', 'auto']
const TITLES: Record<Permission, string> = {
  off: 'Disabled: agents cannot call it',
  ask: 'Each call waits for your approval here',
  auto: 'Calls run without asking',
}

/** Three-way off / ask / auto switch; `testId` prefixes each button's data-testid. */
export function PermissionControl(props: {
  value: Permission
  testId: string
  label: string
  disabled: boolean
  onChange: (p: Permission) => void
}) {
  return (
    <div
      class="permission"
      role="group"
      aria-label={props.label}
      data-testid={props.testId}
      data-value={props.value}
    >
      {VALUES.map((v) => (
        <button
          type="button"
          key={v}
          class={v === props.value ? `on perm-${v}` : ''}
          aria-pressed={v === props.value}
          title={TITLES[v]}
          disabled={props.disabled}
          data-testid={`${props.testId}-${v}`}
          onClick={() => v !== props.value && props.onChange(v)}
        >
          {v}
        </button>
      ))}
    </div>
  )
}
