/**
 * The built-in tools' names by group, and the core set, as plain data: the side panel reads them
 * without bundling the schemas. A unit test keeps the groups equal to BROWSER_TOOL_GROUPS (index.ts).
 */

/**
 * The built-in tools the `browser` default permission reaches on its own: navigation, reading, acting,
 * tabs and screenshots. The other groups are opted into by name (config.json
 * `permissions.browser.groups`, `bridge config set browser-groups.add <group>`, or `all`); any tool
 * can still be set one by one.
 */
export const CORE_BROWSER_TOOLS: ReadonlySet<string> = new Set([
  'browser_list_tabs',
  'browser_open_tab',
  'browser_close_tab',
  'browser_focus_tab',
  'browser_navigate',
  'browser_go_back',
  'browser_snapshot',
  'browser_wait_for',
  'browser_find',
  'browser_get_markdown',
  'browser_click',
  'browser_hover',
  'browser_type',
  'browser_press_key',
  'browser_select_option',
  'browser_scroll',
  'browser_fill_form',
  'browser_upload_file',
  'browser_screenshot',
  'browser_handle_dialog',
])

/** Each group's tools by full name (the definition modules of this folder). */
export const TOOL_NAMES_BY_GROUP: Readonly<Record<string, readonly string[]>> = {
  tabs: [
    'browser_close_tab',
    'browser_focus_tab',
    'browser_go_back',
    'browser_go_forward',
    'browser_list_tabs',
    'browser_navigate',
    'browser_open_tab',
    'browser_reload',
  ],
  windows: [
    'browser_close_window',
    'browser_create_window',
    'browser_group_tabs',
    'browser_list_tab_groups',
    'browser_list_windows',
    'browser_tab_info',
    'browser_ungroup_tabs',
    'browser_update_window',
  ],
  page: ['browser_get_html', 'browser_get_text', 'browser_snapshot', 'browser_wait_for'],
  reading: ['browser_find', 'browser_get_markdown', 'browser_query'],
  input: [
    'browser_click',
    'browser_hover',
    'browser_press_key',
    'browser_scroll',
    'browser_select_option',
    'browser_type',
  ],
  forms: [
    'browser_drag',
    'browser_drop',
    'browser_fill_form',
    'browser_insert_text',
    'browser_key_down',
    'browser_key_up',
    'browser_set_checked',
    'browser_upload_file',
  ],
  mouse: [
    'browser_mouse_click_xy',
    'browser_mouse_down',
    'browser_mouse_drag_xy',
    'browser_mouse_move_xy',
    'browser_mouse_up',
    'browser_mouse_wheel',
  ],
  devtools: [
    'browser_console_clear',
    'browser_console_logs',
    'browser_console_message',
    'browser_network_export_har',
    'browser_network_requests',
    'browser_network_start',
    'browser_network_stop',
    'browser_save_pdf',
    'browser_screenshot',
  ],
  network: [
    'browser_network_conditions',
    'browser_network_request',
    'browser_route_add',
    'browser_route_list',
    'browser_route_remove',
    'browser_websocket_frames',
  ],
  storage: [
    'browser_clear_site_data',
    'browser_delete_cookie',
    'browser_download',
    'browser_download_status',
    'browser_get_cookies',
    'browser_handle_dialog',
    'browser_list_downloads',
    'browser_local_storage_get',
    'browser_set_cookie',
    'browser_storage_clear',
    'browser_storage_remove',
    'browser_storage_set',
    'browser_wait_for_download',
  ],
  emulation: [
    'browser_clear_emulation',
    'browser_emulate_media',
    'browser_resize_window',
    'browser_set_geolocation',
    'browser_set_user_agent',
    'browser_set_viewport',
    'browser_throttle_cpu',
  ],
  script: ['browser_evaluate'],
  workflows: ['browser_recording_start', 'browser_recording_stop'],
  extension: ['extension_force_reconnect', 'extension_get_logs', 'extension_get_state', 'extension_reload'],
}

const GROUP_BY_NAME = new Map(
  Object.entries(TOOL_NAMES_BY_GROUP).flatMap(([group, names]) =>
    names.map((name) => [name, group] as const),
  ),
)

/** The group of a built-in tool by name, e.g. `network`; `core` is not a group, it spans them. */
export function groupOfToolName(name: string): string | undefined {
  return GROUP_BY_NAME.get(name)
}
