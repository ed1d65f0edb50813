import { Route } from 'preact-iso';
import { Applications } from './Applications.tsx';
import { AuditLog } from './AuditLog.tsx';
import { Clients } from './Clients.tsx';
import { Home } from './Home.tsx';
import { Identities } from './Identities.tsx';
import { IdentityDetail } from './IdentityDetail.tsx';
import { Mailbox } from './Mailbox.tsx';
import { Members } from './Members.tsx';
import { Resources } from './Resources.tsx';
import { SamlConnections } from './SamlConnections.tsx';
import { Status } from './Status.tsx';

/** Console routes under /admin/console; the bare path opens the overview. */
export const consoleRoutes = [
  <Route key="console" path="/admin/console" component={Home} />,
  <Route key="applications" path="/admin/console/applications" component={Applications} />,
  <Route key="clients" path="/admin/console/clients" component={Clients} />,
  <Route key="resources" path="/admin/console/resources" component={Resources} />,
  <Route key="identities" path="/admin/console/identities" component={Identities} />,
  <Route key="identity" path="/admin/console/identities/:sub" component={IdentityDetail} />,
  <Route key="members" path="/admin/console/members" component={Members} />,
  <Route key="audit" path="/admin/console/audit" component={AuditLog} />,
  <Route key="status" path="/admin/console/status" component={Status} />,
  <Route key="single-sign-on" path="/admin/console/single-sign-on" component={SamlConnections} />,
  <Route key="mailbox" path="/admin/console/mailbox" component={Mailbox} />,
];
