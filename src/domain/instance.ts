/**
 * A server instance as other instances on the socket can judge it: its pid, its start time (field
 * 22 of /proc/<pid>/stat, clock ticks after boot) and its pid namespace (the inode of
 * /proc/<pid>/ns/pid). What an instance leaves in tmux (paste buffers, a run's record) carries this
 * tag, so a later instance can tell the leftovers of a dead one: dead when its pid is gone or
 * belongs to a process started at another time (the pid was reused). A tag from another pid
 * namespace, or one written where /proc could not be read, is never judged dead: its pid means
 * something else here. Pure: this process's tag, and the reads behind a `ProcView`, are platform/Proc.ts's.
 */

/** An instance's identity. @category models */
export interface Instance {
  readonly pid: number
  readonly started: number
  /** The pid namespace's inode, or "" where it cannot be read. */
  readonly namespace: string
}

/** What /proc says here, for judging a tag. @category models */
export interface ProcView {
  /** This process's pid namespace inode ("" when it cannot be read). */
  readonly namespace: string
  /** The start time of `pid` here, or `undefined` when there is no such process. */
  readonly startedOf: (pid: number) => number | undefined
}

/** The tag written into names and records: `<pid>.<start>.<namespace>`. */
export const formatTag = (instance: Instance): string => `${instance.pid}.${instance.started}.${instance.namespace}`

/** A tag read back, or `undefined` when it is not one. */
export const parseTag = (tag: string): Instance | undefined => {
  const match = /^([0-9]{1,10})\.([0-9]{1,20})\.([0-9]{0,20})$/u.exec(tag)
  return match === null ? undefined : { pid: Number(match[1]), started: Number(match[2]), namespace: match[3]! }
}

/** Whether the tagged instance is provably dead: "unknown" for another namespace or an unreadable one. */
export const judgeInstance = (instance: Instance, here: ProcView): "dead" | "alive" | "unknown" => {
  if (instance.namespace === "" || instance.namespace !== here.namespace) return "unknown"
  const started = here.startedOf(instance.pid)
  return started === undefined || started !== instance.started ? "dead" : "alive"
}
