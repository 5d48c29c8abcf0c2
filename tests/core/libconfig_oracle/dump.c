/* The owner's reading of a libconfig file: libconfig 1.7.3 (what ProxySQL 2.7 bundles) parses argv[1] and
   this prints the tree as JSON ({"int": 1}, {"string": "x"}, groups as objects, lists and arrays as arrays),
   or "ERR <line> <text>". tests/core/test_libconfig_oracle.py builds it against the library's own sources
   and compares core.libconfig with it. */
#include <stdio.h>
#include <string.h>
#include "libconfig.h"
static void str(const char *s){putchar('"');for(;*s;s++){unsigned char c=*s; if(c=='"'||c=='\\')printf("\\%c",c); else if(c<0x20||c>=0x7f) printf("\\u%04x",c); else putchar(c);}putchar('"');}
static void dump(const config_setting_t *s){
  int i,n; switch(config_setting_type(s)){
  case CONFIG_TYPE_GROUP: putchar('{'); n=config_setting_length(s); for(i=0;i<n;i++){config_setting_t*c=config_setting_get_elem(s,i); if(i)putchar(','); str(config_setting_name(c)); putchar(':'); dump(c);} putchar('}'); break;
  case CONFIG_TYPE_LIST: case CONFIG_TYPE_ARRAY: putchar('['); n=config_setting_length(s); for(i=0;i<n;i++){ if(i)putchar(','); dump(config_setting_get_elem(s,i)); } putchar(']'); break;
  case CONFIG_TYPE_INT: printf("{\"int\":%d}", config_setting_get_int(s)); break;
  case CONFIG_TYPE_INT64: printf("{\"int64\":%lld}", config_setting_get_int64(s)); break;
  case CONFIG_TYPE_FLOAT: printf("{\"float\":%.17g}", config_setting_get_float(s)); break;
  case CONFIG_TYPE_STRING: printf("{\"string\":"); str(config_setting_get_string(s)); putchar('}'); break;
  case CONFIG_TYPE_BOOL: printf("{\"bool\":%s}", config_setting_get_bool(s)?"true":"false"); break;
  default: printf("null"); }
}
int main(int argc,char**argv){config_t c; config_init(&c); if(!config_read_file(&c,argv[1])){printf("ERR %d %s\n",config_error_line(&c),config_error_text(&c));return 0;} dump(config_root_setting(&c)); putchar('\n'); return 0;}
