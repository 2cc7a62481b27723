import { memo, useCallback, useEffect, useRef, type KeyboardEvent } from 'react';
import { Age } from '../../components/age';
import { HealthBadge, ReadyBadge } from '../../components/status-badge';
import type { FleetRow, SortKey, SortSpec } from './fleet-model';
import { servicesText, windowsLabel } from './fleet-model';
import { listKeyTarget } from '../../app/list-keys';
import { gridStyle, rowStyle, useFixedRowVirtualizer, useWindowRows } from '../../components/virtual-grid';

export const ROW_HEIGHT_PX = 36;
export const HEADER_HEIGHT_PX = 40;

interface Column {
  key: SortKey;
  label: string;
  widthPx: number;
}

const COLUMNS: readonly Column[] = [
  { key: 'name', label: 'Name', widthPx: 220 },
  { key: 'os', label: 'OS', widthPx: 90 },
  { key: 'windows', label: 'Windows release / build', widthPx: 220 },
  { key: 'kubelet', label: 'Kubelet', widthPx: 110 },
  { key: 'runtime', label: 'Runtime', widthPx: 180 },
  { key: 'ready', label: 'Ready', widthPx: 100 },
  { key: 'pods', label: 'Pods', widthPx: 70 },
  { key: 'services', label: 'Services', widthPx: 260 },
  { key: 'health', label: 'Health', widthPx: 300 },
  { key: 'findings', label: 'Open findings', widthPx: 170 },
  { key: 'probedAt', label: 'Last probed', widthPx: 130 },
  { key: 'syncedAt', label: 'Last synced', widthPx: 140 },
];

const GRID_STYLE = gridStyle(COLUMNS.map((c) => c.widthPx));

export function rowDomId(name: string): string {
  return `node-row-${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** Findings cell: badges per severity, or a muted word on the cell itself (no extra element per row). */
function FindingsCell({ findings }: { findings: FleetRow['findings'] }) {
  if (!findings)
    return (
      <td role="gridcell" className="muted" title="Findings are not available in this build yet.">
        —
      </td>
    );
  const total = findings.error + findings.warning + findings.info;
  if (total === 0)
    return (
      <td role="gridcell" className="muted">
        none
      </td>
    );
  return (
    <td role="gridcell">
      <span className="finding-counts">
        {findings.error > 0 && (
          <span className="badge severity-error" title={`${findings.error} errors`}>
            ✖ {findings.error}
          </span>
        )}
        {findings.warning > 0 && (
          <span className="badge severity-warning" title={`${findings.warning} warnings`}>
            ▲ {findings.warning}
          </span>
        )}
        {findings.info > 0 && (
          <span className="badge severity-info" title={`${findings.info} info`}>
            ℹ {findings.info}
          </span>
        )}
      </span>
    </td>
  );
}

/** Short badge text per state; the full words are in the cell's accessible text. */
const STATE_ICON: Record<string, string> = { Running: '●', Stopped: '■', StartPending: '◔', StopPending: '◔', Paused: '❚❚' };

/** Compact service badges: shape and colour per state, one accessible sentence for the whole cell. */
function ServicesCell({ probe }: { probe: FleetRow['probe'] }) {
  const text = servicesText(probe);
  if (!probe?.services || Object.keys(probe.services).length === 0) {
    if (probe?.servicesOk === false)
      return (
        <td role="gridcell" className="cell-services">
          <span className="badge health-error" title={text}>
            probe failed
          </span>
        </td>
      );
    return (
      <td role="gridcell" className="cell-services muted" title={text}>
        {probe?.services ? 'none' : '—'}
      </td>
    );
  }
  return (
    <td role="gridcell" className="cell-services">
      <span className="service-badges" title={text}>
        <span className="visually-hidden">{text}</span>
        {Object.entries(probe.services).map(([name, state]) => (
          <span key={name} className={`badge service-state ${state === 'Running' ? 'health-healthy' : 'health-error'}`} aria-hidden="true">
            {STATE_ICON[state] ?? '?'} {name}
          </span>
        ))}
      </span>
    </td>
  );
}

interface RowProps {
  row: FleetRow;
  index: number;
  /** Offset of the row inside the row group (px). */
  top: number;
  active: boolean;
  live: boolean;
  onOpen: (name: string) => void;
  onActive: (name: string) => void;
}

/** One row; memoized so scrolling re-renders only rows that enter the window. */
const FleetRowView = memo(function FleetRowView({ row, index, top, active, live, onOpen, onActive }: RowProps) {
  return (
    <tr
      id={rowDomId(row.name)}
      role="row"
      aria-rowindex={index + 2}
      aria-selected={active}
      className={`${active ? 'active ' : ''}health-row-${row.health}`}
      style={rowStyle(top, ROW_HEIGHT_PX)}
      onClick={() => {
        onActive(row.name);
        onOpen(row.name);
      }}
    >
      <td role="gridcell" className="cell-name" title={row.name}>
        <a href={`#/nodes/${encodeURIComponent(row.name)}`} tabIndex={-1} onClick={(e) => e.stopPropagation()}>
          {row.name}
        </a>
      </td>
      <td role="gridcell">{row.os}</td>
      <td role="gridcell" title={windowsLabel(row)}>
        {windowsLabel(row)}
      </td>
      <td role="gridcell">{row.kubeletVersion ?? '—'}</td>
      <td role="gridcell" title={row.containerRuntime ?? undefined}>
        {row.containerRuntime ?? '—'}
      </td>
      <td role="gridcell">
        <ReadyBadge ready={row.ready} />
      </td>
      <td role="gridcell" className="numeric">
        {row.podCount}
      </td>
      <ServicesCell probe={row.probe} />
      <td role="gridcell" title={row.reasons.join('\n') || undefined}>
        <HealthBadge health={row.health} /> <span className="reasons">{row.reasons.join('; ')}</span>
      </td>
      <FindingsCell findings={row.findings} />
      {row.probe ? (
        <td role="gridcell" className="cell-probed">
          <Age at={row.probe.probedAt} label="" />
        </td>
      ) : (
        <td role="gridcell" className="cell-probed muted">
          not probed yet
        </td>
      )}
      <td role="gridcell">
        <Age at={row.syncedAt} live={live} label="" />
      </td>
    </tr>
  );
});

export interface FleetTableProps {
  rows: readonly FleetRow[];
  sort: SortSpec;
  onSort: (key: SortKey) => void;
  activeName: string | null;
  onActive: (name: string) => void;
  onOpen: (name: string) => void;
  /** Stored (not live) data: show each row's age. */
  live: boolean;
}

/**
 * The fleet as one virtualized table: only visible rows are in the DOM (fine with 5,000 nodes). Keyboard: the
 * table is one tab stop; arrows, Page Up/Down, Home/End move the active row, Enter opens it.
 */
export function FleetTable({ rows, sort, onSort, activeName, onActive, onOpen, live }: FleetTableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useFixedRowVirtualizer(rows.length, scrollRef, ROW_HEIGHT_PX, HEADER_HEIGHT_PX, 6);

  const activeIndex = activeName === null ? -1 : rows.findIndex((r) => r.name === activeName);

  useEffect(() => {
    if (activeIndex >= 0) virtualizer.scrollToIndex(activeIndex, { align: 'auto' });
  }, [activeIndex, virtualizer]);

  const move = useCallback(
    (index: number) => {
      if (rows.length === 0) return;
      const clamped = Math.max(0, Math.min(rows.length - 1, index));
      const row = rows[clamped];
      if (row) onActive(row.name);
    },
    [rows, onActive],
  );

  const page = Math.max(1, Math.floor(((scrollRef.current?.clientHeight ?? 600) - HEADER_HEIGHT_PX) / ROW_HEIGHT_PX) - 1);

  function onKeyDown(e: KeyboardEvent<HTMLTableElement>) {
    const from = activeIndex < 0 ? -1 : activeIndex;
    const to = listKeyTarget(e.key, from, page, rows.length);
    if (to !== null) {
      move(to);
      e.preventDefault();
      return;
    }
    switch (e.key) {
      case 'Enter': {
        const row = rows[from];
        if (row) onOpen(row.name);
        break;
      }
      default:
        return;
    }
    e.preventDefault();
  }

  const items = virtualizer.getVirtualItems();
  const windowRows = useWindowRows(
    items.map((item) => item.index),
    !virtualizer.isScrolling,
  );
  const firstIndex = items[0]?.index ?? 0;
  const bodyHeight = Math.max(0, virtualizer.getTotalSize() - HEADER_HEIGHT_PX);
  const activeRow = activeIndex >= 0 ? rows[activeIndex] : undefined;

  return (
    <div className="fleet-scroll" ref={scrollRef}>
      <table
        className="fleet-table"
        style={GRID_STYLE.table}
        role="grid"
        aria-label="Nodes"
        aria-rowcount={rows.length + 1}
        aria-colcount={COLUMNS.length}
        aria-readonly="true"
        tabIndex={0}
        aria-activedescendant={activeRow ? rowDomId(activeRow.name) : undefined}
        onKeyDown={onKeyDown}
        onFocus={() => {
          if (activeIndex < 0) move(0);
        }}
      >
        <thead role="rowgroup" style={GRID_STYLE.group}>
          <tr role="row" aria-rowindex={1} style={{ height: HEADER_HEIGHT_PX }}>
            {COLUMNS.map((c) => {
              const sorted = sort.key === c.key;
              return (
                <th key={c.key} role="columnheader" scope="col" aria-sort={sorted ? (sort.dir === 'asc' ? 'ascending' : 'descending') : 'none'}>
                  <button type="button" className="sort-button" onClick={() => onSort(c.key)} title={`Sort by ${c.label}`}>
                    {c.label}
                    <span aria-hidden="true" className="sort-indicator">
                      {sorted ? (sort.dir === 'asc' ? ' ▲' : ' ▼') : ''}
                    </span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody role="rowgroup" style={{ ...GRID_STYLE.group, height: bodyHeight }}>
          {windowRows.map(({ index, key }) => {
            const item = items[index - firstIndex];
            const row = rows[index];
            if (!row || !item) return null;
            return (
              <FleetRowView
                key={key}
                row={row}
                index={item.index}
                top={item.start - HEADER_HEIGHT_PX}
                active={item.index === activeIndex}
                live={live}
                onOpen={onOpen}
                onActive={onActive}
              />
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && <p className="table-empty">No node matches these filters.</p>}
    </div>
  );
}
