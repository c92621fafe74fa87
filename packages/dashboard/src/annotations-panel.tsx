import type { AnnotationsControlView, JobAnnotationsView } from '@sims/annotation-sim';
import { type Section, type SectionProps, time, useResource } from './shell';

/** Jobs and events the panel asks for; the control plane says how many there are in all. */
const JOBS = 20;
const EVENTS = 50;

function JobCard({ job }: { job: JobAnnotationsView }) {
  const heading = `job-annotations-${job.job_id}`;
  return (
    <section class="card" aria-labelledby={heading} data-annotations-job={job.job_id}>
      <h3 id={heading}>
        Job {job.job_id}: task {job.task_id} {job.task_name}
      </h3>
      <p class="muted">
        {job.tags} tags · {job.shapes} shapes · {job.tracks} tracks
      </p>
      {job.by_label.length > 0 && (
        <div class="scroll">
          <table aria-label={`Annotations of job ${job.job_id} by label and type`}>
            <thead>
              <tr>
                <th scope="col">Label</th>
                <th scope="col">Type</th>
                <th scope="col">Count</th>
              </tr>
            </thead>
            <tbody>
              {job.by_label.map((c) => (
                <tr key={`${c.label_id}:${c.type}`}>
                  <th scope="row">{c.label ?? `#${c.label_id}`}</th>
                  <td>{c.type}</td>
                  <td>{c.count}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function AnnotationsPanel({ api, live }: SectionProps) {
  const view = useResource(
    () => api.get<AnnotationsControlView>(`/annotations?limit=${JOBS}&events_limit=${EVENTS}`),
    [api, live.version],
  );
  const data = view.data;
  return (
    <div>
      <h2>Annotations</h2>
      {view.error && <p role="alert">{view.error}</p>}
      {data && data.jobs.length === 0 && <p>No job holds annotations in this namespace.</p>}
      {data && data.job_count > data.jobs.length && (
        <p class="muted">
          The first {data.jobs.length} of {data.job_count} jobs with annotations.
        </p>
      )}
      {data?.jobs.map((job) => (
        <JobCard job={job} key={job.job_id} />
      ))}
      <h3>Annotation events</h3>
      {data && (
        <p class="muted">
          {data.event_count} in the event log
          {data.event_count > data.events.length ? `, the newest ${data.events.length} shown` : ''}
        </p>
      )}
      <div class="scroll">
        <table aria-label="Annotation events">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Scope</th>
              <th scope="col">Type</th>
              <th scope="col">Count</th>
              <th scope="col">Job</th>
              <th scope="col">User</th>
            </tr>
          </thead>
          <tbody>
            {data?.events.map((e, i) => (
              <tr key={`${e.timestamp}:${i}`}>
                <th scope="row">{time(e.timestamp)}</th>
                <td>{e.scope}</td>
                <td>{e.obj_name ?? ''}</td>
                <td>{e.count ?? ''}</td>
                <td>{e.job_id ?? ''}</td>
                <td>{e.user ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

/** The Annotations tab: each job's annotations by label and type, and the newest annotation events. */
export const annotationsSection: Section = {
  id: 'annotations',
  title: 'Annotations',
  Panel: AnnotationsPanel,
};
