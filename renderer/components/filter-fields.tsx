/** The labelled fields of a filter toolbar (`.toolbar > .field`): the fleet and pods views. */

export interface FilterOption<T extends string> {
  value: T;
  label: string;
}

/** A search box with its label. */
export function FilterSearch({
  id,
  label,
  value,
  placeholder,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  placeholder: string;
  onChange: (value: string) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="search" value={value} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
    </div>
  );
}

/** A select with its label; `onChange` gets one of the options' values. */
export function FilterSelect<T extends string>({
  id,
  label,
  value,
  options,
  onChange,
  disabled,
  title,
}: {
  id: string;
  label: string;
  value: T;
  options: readonly FilterOption<T>[];
  onChange: (value: T) => void;
  disabled?: boolean;
  title?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} disabled={disabled} title={title} onChange={(e) => onChange(e.target.value as T)}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
